import type { OffsetRange } from './expectation.js';
import { unrepaired } from './repaired.js';
import type { GatheredRun } from './run-types.js';

/**
 * The offsets a consumer missed and did not get back: what the broker dropped
 * for it and what it skipped when it subscribed again at `latest`, less what a
 * delta it asked for re-sent (repaired). With `beforeSubscription`, also
 * everything before a late `latest` subscription began (a late joiner, a
 * restarted process): the checker keeps that apart, the expectation counts it.
 */
export function missedRangesOf(run: GatheredRun, consumer: GatheredRun['consumers'][number], beforeSubscription: boolean): OffsetRange[] {
  const report = consumer.report;
  const dropped = run.broker?.subscribers[consumer.name]?.droppedRanges ?? [];
  const before: OffsetRange[] = beforeSubscription && report && report.coveredAfter > 0 ? [[1, report.coveredAfter]] : [];
  return unrepaired([...dropped, ...before, ...(report?.skippedRanges ?? [])], report?.repairedRanges ?? []);
}

/**
 * Which keys missed at least one update: a write of theirs fell in one of the
 * consumer's missed ranges. `keyAt(offset)` is the key written at that offset
 * (the publisher's history: offsets and versions are the same sequence).
 * Pure: a key can be missed and still end right, if a later write reached it.
 */
export function missedKeys(ranges: OffsetRange[], keyAt: (offset: number) => number | undefined): Set<number> {
  const missed = new Set<number>();
  for (const [a, b] of ranges) {
    for (let offset = a; offset <= b; offset++) {
      const key = keyAt(offset);
      if (key !== undefined) missed.add(key);
    }
  }
  return missed;
}
