import type { ConsumerCheck } from '../model/check-types.js';
import type { ConsumerDamage, GatheredRun } from '../model/run-types.js';
import { wrongByDecile } from './damage.js';
import { expectedWrong, type OffsetRange } from './expectation.js';
import { brokerEvidenceOf, missedKeys, missedRanges } from './missed.js';
import {
  changeSequence,
  relistedAfterRestart,
  shifted,
  undeliveredByDeadBrokers,
  versionsAsChanges,
  type ChangeSequence,
} from './restart-evidence.js';

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Of each decile's keys that missed an update, the share still wrong (null: none missed, or unknown). */
function survival(wrong: number[], missed: number[] | null): Array<number | null> | null {
  if (missed === null) return null;
  return wrong.map((w, d) => ((missed[d] ?? 0) === 0 ? null : round3(w / missed[d]!)));
}

/** Why nothing is predicted after two broker restarts or more (a broker without a log). */
export const SEVERAL_RESTARTS = (n: number): string =>
  `no prediction: the broker lost its memory ${n} times, and which of its incarnations accepted which change is ` +
  `not known, so neither is what each consumer missed`;

/**
 * The changes a consumer missed and never got back, as ranges of the run's
 * changes (ChangeSequence): the final broker's offsets it missed (missed.ts),
 * and after a restart of a broker without a log what only a dead broker had
 * accepted: all of it for a copy a later snapshot replaced, else the versions
 * that never reached it (restart-evidence.ts). null: not known.
 */
function missedChanges(run: GatheredRun, sequence: ChangeSequence, name: string): OffsetRange[] | null {
  const consumer = run.consumers.find((c) => c.name === name)!;
  const side = run.broker === null ? undefined : brokerEvidenceOf(run.broker, name);
  if (side === undefined || consumer.report === null) return null;
  const final = shifted(missedRanges(side, consumer.report), sequence.shift);
  if (sequence.shift === 0) return final;
  const outages = run.brokerOutages ?? [];
  if (relistedAfterRestart(consumer.report, outages)) return [[1, sequence.shift], ...final];
  const undelivered = undeliveredByDeadBrokers(consumer.report, outages, run.broker!.epoch);
  return undelivered === null ? null : [...versionsAsChanges(undelivered, sequence), ...final];
}

/**
 * Per consumer: wrong and missed fractions by hotness decile, and the expected
 * number of wrong keys, from the changes it missed, out of every change the
 * brokers accepted. Without the broker's report, its entry there, or its own
 * report, what it missed is unknown: its expectation and missed fractions are
 * null, never guessed; after two restarts of a broker without a log nobody's is
 * predicted (noPrediction says why). What the run shares is worked out once
 * here; `of` gives one consumer's row.
 */
export function damageBy(run: GatheredRun): {
  noPrediction: string | null;
  of: (consumer: GatheredRun['consumers'][number], check: ConsumerCheck) => ConsumerDamage;
} {
  const { authority, history, discarded } = run.publisher;
  const keys = authority.versions.length;
  const outages = run.brokerOutages ?? [];
  // Offsets are the broker's, versions the publisher's: one sequence of changes unless something did not fit.
  const sequence = run.broker === null ? null : changeSequence(authority, discarded, run.broker, outages.length > 0);
  const noPrediction =
    sequence !== null && sequence.shift > 0 && outages.length > 1 ? SEVERAL_RESTARTS(outages.length) : null;
  type Missed = Pick<ConsumerDamage, 'missedByDecile' | 'expectedWrong'>;
  const unknown: Missed = { missedByDecile: null, expectedWrong: null };
  const missedOf = (c: GatheredRun['consumers'][number]): Missed => {
    if (sequence === null) {
      // Offsets and versions cannot be matched (something was refused): the offsets it missed
      // still say how many keys.
      const side = run.broker === null ? undefined : brokerEvidenceOf(run.broker, c.name);
      if (outages.length > 0 || side === undefined || c.report === null) return unknown;
      const expected = expectedWrong(keys, run.publisher.published, missedRanges(side, c.report));
      return { missedByDecile: null, expectedWrong: expected };
    }
    const missed = noPrediction === null ? missedChanges(run, sequence, c.name) : null;
    if (missed === null) return unknown;
    const keyAt = (change: number) => history.keys[sequence.versions[change - 1]! - 1];
    return {
      missedByDecile: wrongByDecile([...missedKeys(missed, keyAt)], keys),
      expectedWrong: expectedWrong(keys, sequence.versions.length, missed),
    };
  };
  const of = (c: GatheredRun['consumers'][number], check: ConsumerCheck): ConsumerDamage => {
    const { missedByDecile, expectedWrong: expected } = missedOf(c);
    const wrong = wrongByDecile(check.wrongKeys, keys);
    const survivalByDecile = survival(wrong, missedByDecile);
    return { wrongByDecile: wrong, missedByDecile, survivalByDecile, expectedWrong: expected };
  };
  return { noPrediction, of };
}
