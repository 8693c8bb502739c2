import type { CheckResult } from './checker.js';
import { wrongByDecile } from './damage.js';
import { expectedWrong } from './expectation.js';
import { brokerEvidenceOf, missedKeys, missedRanges } from './missed.js';
import type { GatheredRun } from './run-types.js';

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Of each decile's keys that missed an update, the share still wrong (null: none missed, or unknown). */
function survival(wrong: number[], missed: number[] | null): Array<number | null> | null {
  if (missed === null) return null;
  return wrong.map((w, d) => ((missed[d] ?? 0) === 0 ? null : round3(w / missed[d]!)));
}

/**
 * Per consumer: wrong and missed fractions by hotness decile, and the expected
 * number of wrong keys, from what it missed (missed.ts). Without the broker's
 * report, its entry there, or its own report, what it missed is unknown: its expectation and missed
 * fractions are left out (null in the document), never guessed.
 */
export function damageBy(run: GatheredRun, result: CheckResult) {
  const { authority, history, published } = run.publisher;
  const keys = authority.versions.length;
  const { broker } = run;
  // Offsets are the broker's, the history is the publisher's; they are one sequence unless something was refused.
  const sameSequence = broker !== null && broker.lastWriteOffsets.every((offset, key) => offset === (authority.versions[key] ?? 0));
  const keyAt = (offset: number) => history.keys[offset - 1];
  const missedByDecile: Record<string, number[] | null> = {};
  const expected: Record<string, number> = {};
  for (const c of run.consumers) {
    const side = broker === null ? undefined : brokerEvidenceOf(broker, c.name);
    if (side === undefined || c.report === null) {
      missedByDecile[c.name] = null;
      continue;
    }
    const missed = missedRanges(side, c.report);
    expected[c.name] = expectedWrong(keys, published, missed);
    missedByDecile[c.name] = sameSequence ? wrongByDecile([...missedKeys(missed, keyAt)], keys) : null;
  }
  const byDecile = Object.fromEntries(result.consumers.map((c) => [c.name, wrongByDecile(c.wrongKeys, keys)]));
  const survivalByDecile = Object.fromEntries(Object.entries(byDecile).map(([name, wrong]) => [name, survival(wrong, missedByDecile[name] ?? null)]));
  return { byDecile, missedByDecile, survivalByDecile, expectedWrong: expected };
}
