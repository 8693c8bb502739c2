import type { ConsumerReport } from '@state-divergence/protocol';
import type { Resumption } from '../model/run-types.js';

/**
 * How a consumer came back, from its own report: each subscription after its
 * process's first (after losing the broker, after a disconnect), and a first
 * one that resumed from a checkpoint (`from` set), with what catching up cost.
 * A first subscription from nothing (a snapshot or `latest`) is not a resume.
 */
export function resumptionOf(report: ConsumerReport): Resumption {
  const subscriptions = report.subscriptions ?? [];
  const epochBefore = (i: number): number | null =>
    i > 0 ? subscriptions[i - 1]!.epoch : (report.restoredFrom?.epoch ?? null);
  return {
    resumes: subscriptions.flatMap((s, i) => {
      if (i === 0 && s.from === null) return [];
      const before = epochBefore(i);
      return [
        {
          at: s.at,
          from: s.from,
          epoch: s.epoch,
          outcome: s.outcome,
          catchUpBytes: s.catchUpBytes,
          newEpoch: before !== null && before !== s.epoch,
        },
      ];
    }),
    restoredFrom: report.restoredFrom ?? null,
    removedBySnapshot: report.removedBySnapshot?.length ?? 0,
  };
}

/**
 * Wall-clock ms by which a consumer held everything published before it was back: `back` is
 * the later of `since` (the end of its fault, or the broker's return) and the WELCOME of any
 * subscription it made after it (a consumer that lost its stream is not back when the broker
 * is: its reconnection's backoff runs on). Caught up: the later of `back`, any snapshot or
 * delta it applied after `since`, and the last event published before `back` that it applied
 * after `since` (its backlog: a replay from the log, a queue it read once thawed). Events
 * reach it in offset order, so once that last one is applied, so are all before it. Whether
 * what it holds is right is the checker's to say: the report only uses this for a consumer
 * that ends correct.
 */
export function caughtUpAt(report: ConsumerReport, since: number): number {
  const back = Math.max(since, ...(report.subscriptions ?? []).filter((s) => s.at > since).map((s) => s.at));
  let caughtUp = back;
  for (const sync of report.syncs) if (sync.at > since) caughtUp = Math.max(caughtUp, sync.at);
  const { appliedAt, latencyMs } = report.latency;
  for (let i = 0; i < appliedAt.length; i++) {
    const applied = appliedAt[i]!;
    if (applied > since && applied - latencyMs[i]! <= back) caughtUp = Math.max(caughtUp, applied);
  }
  return caughtUp;
}
