import type { ConsumerReport } from '@state-divergence/protocol';
import type { PublishingOrigin, RunEvent } from '../model/events.js';
import type { GatheredRun } from './run-types.js';

/**
 * How each consumer came back after the broker was killed and started again
 * (`--crash broker@FROM-TO`), from its own report: what catching up cost it
 * and when it had caught up. Pure: the restart experiment's bytes and time to
 * converge are read from here.
 */

/** The broker's last outage on the wall clock (Date.now, the children's clock): SIGKILL, and the new process's start. */
export interface BrokerOutage {
  crashedAt: number;
  restartedAt: number;
}

export interface ConsumerReturn {
  /** Subscriptions it made after the broker died: the reconnect, and a snapshot after a tooOld or a new epoch. */
  subscriptions: number;
  /**
   * What bringing it back cost: each of those subscriptions' catchUpBytes (frames from its
   * WELCOME until its stream reached WELCOME's head: a relist's snapshot, a replay of what it
   * missed; none for a `latest` start), summed.
   */
  catchUpBytes: number;
  /**
   * Wall-clock ms by which it held everything published before it subscribed again: the later
   * of that WELCOME, the end of any snapshot or delta after the crash, and the last event
   * published before that WELCOME that it applied after the crash (a replay's last event).
   * null: it never subscribed again. Whether what it holds is right is the checker's to say.
   */
  caughtUpAt: number | null;
}

/** The broker's restart as the consumers lived it (ModeResult.brokerRestart); by name, null where a consumer's report says too little. */
export interface BrokerRestart {
  outage: BrokerOutage;
  consumers: Record<string, ConsumerReturn | null>;
}

/**
 * The run's last broker outage, from the timeline (null: the broker was never
 * restarted). Events are on the run clock; origin maps them to the wall clock.
 */
export function brokerOutageOf(events: readonly RunEvent[], origin: PublishingOrigin): BrokerOutage | null {
  const wall = (at: number) => origin.wallMs + (at - origin.runMs);
  const ofBroker = events.filter((e) => (e.type === 'crash' || e.type === 'restart') && e.consumer === 'broker');
  const restart = ofBroker.filter((e) => e.type === 'restart').at(-1);
  const crash = restart && ofBroker.filter((e) => e.type === 'crash' && e.at <= restart.at).at(-1);
  return restart && crash ? { crashedAt: wall(crash.at), restartedAt: wall(restart.at) } : null;
}

/** null: a report without subscriptions (a foreign consumer may leave them out), so how it came back is unknown. */
export function consumerReturn(report: ConsumerReport, outage: BrokerOutage): ConsumerReturn | null {
  if (report.subscriptions === undefined) return null;
  const after = report.subscriptions.filter((s) => s.at > outage.crashedAt);
  const last = after.at(-1);
  if (last === undefined) return { subscriptions: 0, catchUpBytes: 0, caughtUpAt: null };
  let caughtUpAt = last.at;
  for (const sync of report.syncs) if (sync.at > outage.crashedAt) caughtUpAt = Math.max(caughtUpAt, sync.at);
  const { appliedAt, latencyMs } = report.latency;
  for (let i = 0; i < appliedAt.length; i++) {
    const applied = appliedAt[i]!;
    if (applied > outage.crashedAt && applied - latencyMs[i]! <= last.at) caughtUpAt = Math.max(caughtUpAt, applied);
  }
  return { subscriptions: after.length, catchUpBytes: after.reduce((sum, s) => sum + s.catchUpBytes, 0), caughtUpAt };
}

/** null: the broker was never restarted. */
export function brokerRestartOf(run: Pick<GatheredRun, 'events' | 'origin' | 'consumers'>): BrokerRestart | null {
  const outage = brokerOutageOf(run.events, run.origin);
  if (outage === null) return null;
  return { outage, consumers: Object.fromEntries(run.consumers.map((c) => [c.name, c.report === null ? null : consumerReturn(c.report, outage)])) };
}
