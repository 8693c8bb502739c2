import type { CheckResult } from './checker.js';
import { wrongByDecile } from './damage.js';
import { expectedWrong, type OffsetRange } from './expectation.js';
import { missedKeys } from './missed.js';
import { unrepaired } from './repaired.js';
import type { GatheredRun } from './run-types.js';

/**
 * What a consumer missed: what the broker dropped for it, what it skipped by
 * subscribing at `latest` after changes were made (a late joiner, a restarted
 * process: everything up to its WELCOME's head; a re-subscribe after a
 * disconnect: its skippedRanges), merged.
 */
function missedRangesOf(run: GatheredRun, consumer: GatheredRun['consumers'][number]): OffsetRange[] {
  const dropped = run.broker?.subscribers[consumer.name]?.droppedRanges ?? [];
  const before: OffsetRange[] = consumer.report && consumer.report.coveredAfter > 0 ? [[1, consumer.report.coveredAfter]] : [];
  return unrepaired([...dropped, ...before, ...(consumer.report?.skippedRanges ?? [])], consumer.report?.repairedRanges ?? []);
}

/** Per consumer: wrong and missed fractions by hotness decile, and the expected number of wrong keys. */
export function damageBy(run: GatheredRun, result: CheckResult) {
  const { authority, history, published } = run.publisher;
  const keys = authority.versions.length;
  // Offsets are the broker's, the history is the publisher's; they are one sequence unless something was refused.
  const sameSequence = (run.broker?.lastWriteOffsets ?? []).every((offset, key) => offset === (authority.versions[key] ?? 0));
  const keyAt = (offset: number) => history.keys[offset - 1];
  const missedByDecile: Record<string, number[] | null> = {};
  const expected: Record<string, number> = {};
  for (const c of run.consumers) {
    const missed = missedRangesOf(run, c);
    expected[c.name] = expectedWrong(keys, published, missed);
    missedByDecile[c.name] = sameSequence ? wrongByDecile([...missedKeys(missed, keyAt)], keys) : null;
  }
  return {
    byDecile: Object.fromEntries(result.consumers.map((c) => [c.name, wrongByDecile(c.wrongKeys, keys)])),
    missedByDecile,
    expectedWrong: expected,
  };
}
