import { CLEAR_LINK, KNOBS, type RelayInit, type RelayReport } from '@state-divergence/protocol';
import type { Endpoint } from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import type { Fault } from '../model/faults.js';
import { linkShapeOf } from '../model/link-shape-of.js';
import { spawnRole } from '../run/child/spawn-role.js';
import type { ChildHandle } from '../run/child/child-handle.js';
import type { LinkReset } from './network-faults.js';
import type { SystemRelay } from './system-document.js';

/** How long a relay may take to report at the end: it is never frozen, so it answers at once or not at all. */
const GATHER_TIMEOUT_MS = 2_000;
/** Its log: warnings only, on stderr, as the rest of a --system run's. */
const RELAY_LOG = { level: 'warn', file: null, mode: null } as const;

/** The network side of a run against a real system: a TCP relay in front of each client a network fault names. */
export interface RelayedLinks {
  /** The endpoint `client` is given: its relay's (scheme, credentials, path kept) if it has one, else the server's. */
  endpointFor(client: string): Endpoint;
  /** The port `client`'s connections reach (its relay's, or the server's): where its kernel queues are looked for. */
  peerPort(client: string): number;
  /** Stages the partitions, delays, caps and resets on the relays, their times from `startedAt` (wall-clock ms). */
  stage(startedAt: number): void;
  /**
   * Resolves once every partition, delay and cap has ended and every reset was sent; rejects if a relay
   * died before it was stopped (its client cut off by no fault anyone asked for: the run fails, as our broker's does).
   */
  done(): Promise<void>;
  /** What each relay did, by client, in the order the clients were named; a relay that did not answer is left out. */
  reports(): Promise<SystemRelay[]>;
  /** Cancels what has not happened and stops every relay (reaped; released from the session's registry). */
  stop(): Promise<void>;
}

/** `endpoint` with its host and port replaced by the relay's loopback address: the client's TCP goes through it. */
function relayedEndpoint(endpoint: Endpoint, port: number): Endpoint {
  const url = new URL(endpoint.url);
  const path = url.pathname === '/' ? '' : url.pathname;
  return { ...endpoint, url: `${url.protocol}//127.0.0.1:${port}${path}`, port };
}

function relayRow(client: string, report: RelayReport): SystemRelay {
  const stream = report.stream;
  return {
    client,
    connections: stream?.accepted ?? 0,
    forwardedBytes: { up: report.up.bytes, down: report.down.bytes },
    maxHeldBytes: stream?.maxHeldBytes ?? { up: 0, down: 0 },
    heals: stream?.heals ?? [],
    resetConnections: stream?.resetConnections ?? 0,
    discardedBytes: stream?.discardedBytes ?? 0,
    caps: report.caps,
  };
}

/**
 * Starts one relay child process (packages/relay in its TCP mode, a process as our broker's run
 * starts its relays: tracked in the session's registry, so every exit path reaps it) per client
 * that `faults` (partitions, delays, caps) or `resets` name, each forwarding to the server at `server`.
 * Clients without one are given the server's endpoint as before.
 */
export async function startLinks(
  faults: readonly Fault[],
  resets: readonly LinkReset[],
  server: Endpoint,
  seed: number,
  session: Pick<Session, 'logger' | 'registry'>,
): Promise<RelayedLinks> {
  const clients = [...new Set([...faults.map((f) => f.consumer), ...resets.map((r) => r.consumer)])];
  const upstream = { host: new URL(server.url).hostname, port: server.port };
  const relays = new Map<string, ChildHandle<'relay'>>();
  const timers: NodeJS.Timeout[] = [];
  const pending: Promise<void>[] = [];
  const stopAll = () =>
    Promise.all(
      [...relays.values()].map(async (relay) => {
        await relay.stop();
        session.registry.delete(relay);
      }),
    );
  try {
    const started = await Promise.allSettled(
      clients.map(async (client) => {
        const init: RelayInit = {
          role: 'relay',
          name: `relay-${client}`,
          client,
          upstream,
          transport: 'tcp',
          // A UDP relay's datagram size, for its log: a TCP relay has none, so the knob's default stands in.
          datagramBytes: KNOBS.datagramSize.default,
          seed,
          log: RELAY_LOG,
        };
        const track = (child: ChildHandle) => session.registry.add(child);
        const relay = await spawnRole({ role: 'relay', name: init.name, init, logger: session.logger, track });
        relays.set(client, relay);
      }),
    );
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    await stopAll();
    throw error;
  }
  let stopping = false;
  const died = new Promise<never>((_, reject) => {
    for (const [client, relay] of relays)
      void relay.exited.then((how) => {
        if (!stopping) reject(new Error(`relay-${client} died (${how}): ${client} was cut off by no fault asked for`));
      });
  });
  died.catch(() => {}); // seen by done(), if it is still awaited
  const portOf = (client: string) => relays.get(client)?.port;
  return {
    endpointFor: (client) => {
      const port = portOf(client);
      return port === undefined ? server : relayedEndpoint(server, port);
    },
    peerPort: (client) => portOf(client) ?? server.port,
    stage: (startedAt) => {
      const at = (seconds: number, what: () => void) =>
        pending.push(
          new Promise<void>((resolve) =>
            timers.push(
              setTimeout(
                () => {
                  what();
                  resolve();
                },
                Math.max(0, startedAt + seconds * 1000 - Date.now()),
              ),
            ),
          ),
        );
      for (const fault of faults) {
        const relay = relays.get(fault.consumer)!;
        const shape = linkShapeOf(fault);
        at(fault.from, () => relay.send({ type: 'shape', up: shape, down: shape }));
        at(fault.to, () => relay.send({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK }));
      }
      for (const reset of resets) at(reset.at, () => relays.get(reset.consumer)!.send({ type: 'reset' }));
    },
    done: async () => {
      await Promise.race([Promise.all(pending), died]);
    },
    reports: async () => {
      const rows = await Promise.all(
        clients.map((client) =>
          relays
            .get(client)!
            .gather(GATHER_TIMEOUT_MS)
            .then((report) => relayRow(client, report))
            .catch(() => undefined),
        ),
      );
      return rows.filter((row): row is SystemRelay => row !== undefined);
    },
    stop: async () => {
      stopping = true;
      timers.forEach(clearTimeout);
      await stopAll();
    },
  };
}
