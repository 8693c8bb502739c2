import { setTimeout as sleep } from 'node:timers/promises';
import {
  consumerInit,
  DEFAULTS,
  relayInit,
  spawnRole,
  startCluster,
  throughRelay,
  type ChildHandle,
} from '@state-divergence/orchestrator';
import type { LogSettings, RelayReport } from '@state-divergence/protocol';
import { createLogger } from '@state-divergence/runtime';

const quiet: LogSettings = { level: 'warn', file: null, mode: 'lossy' };
const logger = createLogger('bench', { ...quiet, mode: null });
const WARM_UP_MS = 1_000;
const REPLY_MS = 5_000;

/** What the fault relay cost while it carried one consumer's link at one publish rate. */
export interface RelayPoint {
  rate: number;
  /** The relay's CPU (user + system) per datagram it carried, either way, µs. */
  microsPerDatagram: number;
  /** Datagrams it carried per second, both ways (events down, acknowledgements up). */
  datagramsPerSec: number;
  /** Events per second the consumer behind it applied. */
  eventsPerSec: number;
  /** The relay's CPU over the same window, % of one core. */
  cpuPercent: number;
}

const carried = (r: RelayReport): number => r.up.forwarded + r.up.dropped + r.down.forwarded + r.down.dropped;

/**
 * (9) The fault relay's cost, through real processes: the demo's broker and publisher (lossy,
 * 1,350-byte datagrams), one consumer whose link goes through a relay with a clear shape (every
 * datagram takes the relay's whole path: a fate decision, counters, a socket send). Measured
 * between two of the relay's reports after a warm-up, so its boot and the handshake are left out;
 * what remains includes its once-a-second counters and IPC, as in a run.
 */
export async function relayCost(rate: number, seconds: number): Promise<RelayPoint> {
  const children: ChildHandle[] = [];
  const track = (child: ChildHandle): void => void children.push(child);
  try {
    const cluster = await startCluster(
      {
        ...DEFAULTS,
        mode: 'lossy',
        overflow: 'drop-new',
        rate,
        deleteRatio: 0,
        idleTimeoutMs: 60_000,
        log: quiet,
        consumers: [],
      },
      { logger, track, aborted: new Promise<never>(() => {}) },
    );
    const name = 'consumer-1';
    const relayed = relayInit(name, cluster.endpoint, 1, quiet);
    const relay = await spawnRole({ role: 'relay', name: relayed.name, init: relayed, logger, track });
    const consumer = await spawnRole({
      role: 'consumer',
      name,
      init: consumerInit(name, throughRelay(relay, cluster.endpoint), 'lossy', quiet),
      logger,
      track,
    });
    cluster.publisher.send({ type: 'start', durationMs: WARM_UP_MS + seconds * 1000 + 2_000 });
    await sleep(WARM_UP_MS);
    const [before, appliedBefore] = await Promise.all([relay.gather(REPLY_MS), consumer.status(REPLY_MS)]);
    await sleep(seconds * 1000);
    const [after, appliedAfter] = await Promise.all([relay.gather(REPLY_MS), consumer.status(REPLY_MS)]);
    const datagrams = carried(after) - carried(before);
    if (datagrams <= 0) throw new Error(`the relay carried nothing in ${seconds} s at ${rate}/s`);
    const cpuMicros = after.cpuMicros - before.cpuMicros;
    return {
      rate,
      microsPerDatagram: cpuMicros / datagrams,
      cpuPercent: cpuMicros / (seconds * 10_000),
      datagramsPerSec: datagrams / seconds,
      eventsPerSec: (appliedAfter.applied - appliedBefore.applied) / seconds,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}
