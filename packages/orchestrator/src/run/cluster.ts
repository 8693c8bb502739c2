import { randomBytes } from 'node:crypto';
import type {
  BrokerEndpoint,
  ChildRole,
  DurableSettings,
  InitOf,
  KnobsOf,
  LogSettings,
  Mode,
  Settings,
} from '@state-divergence/protocol';
import { defaultReadyTimeoutMs, settingsOf, TOKEN_BYTES } from '@state-divergence/protocol';
import { errorMessage, type Logger } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import { PUBLISHER } from '../model/faults.js';
import type { Options } from '../model/options.js';
import { brokerEndpoint, brokerInit, consumerInit, publisherInit, relayInit, throughRelay } from './child-inits.js';
import type { ChildHandle } from './child/child-handle.js';
import { PoolMember } from './child/pool-member.js';
import { spawnRole, type ForeignCommand, type SpawnOptions } from './child/spawn-role.js';
import { generateRunCertificate } from './tls.js';

/** The run's settings its processes are sent, resolved (the idle timeout too: it must outlast the longest stall). */
type ProcessSettings = Pick<Settings, KnobsOf<'broker' | 'publisher' | 'rogue' | 'relay'> | 'datagramSize'>;

/** What to start: the workload, the broker and the clients of one mode. */
export interface ClusterSpec
  extends ProcessSettings, Pick<Options, 'overflow' | 'readyTimeoutMs'>, Partial<Pick<Options, 'staleAfterMs'>> {
  mode: Mode;
  /** Consumers subscribed from the start (a late joiner is added later with `addConsumer`). */
  consumers: string[];
  /**
   * Consumers of `consumers` hosted together, one process per group (run/pools.ts): `pool-1` the
   * first group. Absent or empty: each consumer is a process of its own.
   */
  pools?: string[][];
  /** Chosen with --idle-timeout: kept as given, never raised for a foreign consumer (see idleTimeoutFor). */
  idleTimeoutChosen?: boolean;
  log: LogSettings;
  /**
   * Clients (consumers, `publisher`) with a network fault in the run: each talks to the broker through
   * its own fault relay, started once the broker listens. Absent or empty: no relay (a run without
   * network faults costs nothing).
   */
  relayed?: string[];
  /** Consumers someone else wrote, by name (--consumer-cmd): each runs its command, a restart too. */
  foreign?: Record<string, ForeignCommand>;
  /** Told of every contract failure of a foreign consumer (docs/CONSUMER.md), by name. */
  breach?: (name: string, failure: string) => void;
  /**
   * A mode that keeps a log: its data under the run's data dir (run/data-dir.ts), the broker's log
   * and each of our consumers' checkpoint directory. Absent in any other mode.
   */
  data?: { log: DurableSettings; checkpointDir(name: string): string } | null;
}

export interface Cluster {
  /** The broker now: after a restart its successor (the crashed one while the successor boots). */
  broker: ChildHandle<'broker'>;
  publisher: ChildHandle<'publisher'>;
  /** In start order, then joiners as they subscribe; a pooled one is its pool's member (child/pool-member.ts). */
  consumers: Array<ChildHandle<'consumer'>>;
  /** The pool processes hosting consumers, in order (`pool-1` first); empty when every consumer runs alone. */
  pools: Array<ChildHandle<'pool'>>;
  rogue: ChildHandle<'rogue'> | undefined;
  /** Each network-faulted client's fault relay, by the client's name (a consumer or `publisher`); empty without network
   * faults. */
  relays: Map<string, ChildHandle<'relay'>>;
  endpoint: BrokerEndpoint;
  /**
   * Starts a consumer against the running broker: a joiner is added to `consumers`, a restart replaces its
   * crashed predecessor. Undefined: a foreign consumer that did not start (its contract failure says why).
   */
  addConsumer(name: string): Promise<ChildHandle<'consumer'> | undefined>;
  /**
   * Starts a new broker in place of the crashed one, with its init (certificate, token, data dir)
   * on its port, so that clients reconnecting to the endpoint find it; it becomes `broker` once ready.
   */
  restartBroker(): Promise<ChildHandle<'broker'>>;
}

/**
 * Nothing is published until every consumer is ready, and lossy and lossless send nothing on an
 * idle stream: with a foreign consumer in the run, the connections already made must outlive the
 * wait for it (booted, then ready: up to two ready timeouts), or one slow to start would time out
 * every connection and fail everyone's run. Our clients PING (runtime/src/quic/client.ts), a foreign
 * one may not. An --idle-timeout the user chose is theirs to keep: it is never raised.
 */
function idleTimeoutFor(spec: ClusterSpec, readyTimeoutMs: number): number {
  const waitsForForeign = Object.keys(spec.foreign ?? {}).length > 0 && spec.idleTimeoutChosen !== true;
  return waitsForForeign ? Math.max(spec.idleTimeoutMs, 2 * readyTimeoutMs + 10_000) : spec.idleTimeoutMs;
}

/**
 * A foreign consumer that cannot start or never says ready is a finding about it (a contract
 * failure), not the end of the run: it is left out. The broker's own failure is still the run's.
 */
function tolerated(
  starting: Promise<ChildHandle<'consumer'>>,
  endpoint: Promise<BrokerEndpoint>,
  breach: (failure: string) => void,
): Promise<ChildHandle<'consumer'> | undefined> {
  return starting.catch(async (error: unknown) => {
    await endpoint;
    breach(errorMessage(error));
    return undefined;
  });
}

/**
 * Starts every process of a mode at once: each loads its modules while the
 * certificate is made and the broker binds, and gets its configuration as soon
 * as it exists. Resolves when all are ready (each consumer only once subscribed,
 * so none misses the first event). `track` sees every process the moment it
 * exists, so teardown reaches even one that is still booting.
 */
export async function startCluster(
  spec: ClusterSpec,
  context: { logger: Logger; track: (child: ChildHandle) => void; aborted: Promise<never> },
): Promise<Cluster> {
  const { logger, track } = context;
  const relayed = spec.relayed ?? [];
  const readyTimeoutMs = spec.readyTimeoutMs ?? defaultReadyTimeoutMs(spec.consumers.length + 3 + relayed.length);
  const spawn = <R extends ChildRole>(
    role: R,
    name: string,
    init: Promise<InitOf<R>>,
    more: Partial<SpawnOptions<R>> = {},
  ) => spawnRole({ role, name, init, logger, readyTimeoutMs, track, ...more });
  // Admission: the pinned certificate proves the broker to clients; the token proves clients to the broker.
  const token = randomBytes(TOKEN_BYTES).toString('hex');
  const certificate = generateRunCertificate();
  const { mode, overflow, log } = spec;
  const idleTimeoutMs = idleTimeoutFor(spec, readyTimeoutMs);
  const data = spec.data ?? null;
  const durableLog = data?.log ?? null;
  const configured = certificate.then((tls) =>
    brokerInit({ ...spec, mode, overflow, tls, token, idleTimeoutMs, log, durableLog }),
  );
  const brokerReady = spawn('broker', 'broker', configured);
  const endpoint = Promise.all([brokerReady, configured]).then(([b, init]) => brokerEndpoint(b, init));
  endpoint.catch(() => {}); // observed by every client's spawn; seen once is enough
  const relays = new Map(
    relayed.map((client) => [
      client,
      spawn(
        'relay',
        `relay-${client}`,
        endpoint.then((broker) => relayInit(client, broker, spec.seed, log)),
      ),
    ]),
  );
  /** Where `client` reaches the broker: through its relay if it has one (a crashed consumer's successor too). */
  const endpointOf = (client: string): Promise<BrokerEndpoint> => {
    const relay = relays.get(client);
    return relay === undefined
      ? endpoint
      : Promise.all([relay, endpoint]).then(([r, broker]) => throughRelay(r, broker));
  };
  /** One of our consumers' init, whether it runs alone or in a pool. */
  const ourInit = (name: string, broker: BrokerEndpoint) =>
    consumerInit(name, broker, mode, log, data?.checkpointDir(name) ?? null, spec.staleAfterMs);
  const addConsumer = (name: string): Promise<ChildHandle<'consumer'> | undefined> => {
    const foreign = spec.foreign?.[name];
    const breach = (failure: string) => spec.breach?.(name, failure);
    const reach = endpointOf(name);
    if (foreign === undefined)
      return spawn(
        'consumer',
        name,
        reach.then((broker) => ourInit(name, broker)),
      );
    const init = reach.then((broker) => consumerInit(name, broker, mode, log, null, spec.staleAfterMs));
    return tolerated(spawn('consumer', name, init, { foreign, breach }), endpoint, breach);
  };
  const rogueInit = async (): Promise<InitOf<'rogue'>> => {
    const [broker, decoy] = await Promise.all([endpoint, generateRunCertificate()]);
    return { role: 'rogue', name: 'rogue', broker, decoyCaPem: decoy.certPem, ...settingsOf('rogue', spec), log };
  };
  const publisher = spawn(
    'publisher',
    'publisher',
    endpointOf(PUBLISHER).then((broker) => publisherInit(broker, spec, log)),
  );
  const rogue = spec.rogueFrames === 0 ? Promise.resolve(undefined) : spawn('rogue', 'rogue', rogueInit());
  const hosted = new Map<string, Promise<PoolMember>>();
  const pools = (spec.pools ?? []).map((members, i) => {
    const name = `pool-${i + 1}`;
    const pool = spawn(
      'pool',
      name,
      endpoint.then((broker) => ({
        role: 'pool' as const,
        name,
        members: members.map((m) => ourInit(m, broker)),
        log,
      })),
    );
    for (const member of members)
      hosted.set(
        member,
        pool.then((p) => new PoolMember(p, member)),
      );
    return pool;
  });
  const consumers = spec.consumers.map((name) => hosted.get(name) ?? addConsumer(name));
  // Wait for all of them, even when one fails, so none is left booting behind our back.
  const all = Promise.allSettled([brokerReady, publisher, rogue, endpoint, ...relays.values(), ...pools, ...consumers]);
  const failed = (await Promise.race([all, context.aborted])).find(
    (s): s is PromiseRejectedResult => s.status === 'rejected',
  );
  if (failed) throw failed.reason;
  const cluster: Cluster = {
    broker: await brokerReady,
    publisher: await publisher,
    rogue: await rogue,
    relays: new Map(await Promise.all([...relays].map(async ([client, relay]) => [client, await relay] as const))),
    consumers: (await Promise.all(consumers)).filter((c) => c !== undefined),
    pools: await Promise.all(pools),
    endpoint: await endpoint,
    addConsumer: async (name) => {
      const joined = await addConsumer(name);
      if (joined === undefined) return undefined;
      // A restart takes its crashed predecessor's place; a joiner is added.
      const at = cluster.consumers.findIndex((c) => c.name === name);
      if (at >= 0) cluster.consumers[at] = joined;
      else cluster.consumers.push(joined);
      return joined;
    },
    restartBroker: async () => {
      const { port } = cluster.endpoint;
      const broker = await spawn(
        'broker',
        'broker',
        configured.then((init) => ({ ...init, port })),
      );
      if (broker.port !== port)
        throw new RunError(
          'E_SPAWN',
          `the restarted broker (pid ${broker.pid}) listens on port ${broker.port}, not ${port}: the clients ` +
            `cannot find it`,
        );
      cluster.broker = broker;
      return broker;
    },
  };
  return cluster;
}
