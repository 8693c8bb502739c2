import type { ConsumerReport, SubscriptionRecord } from '@state-divergence/protocol';
import { mergeRanges, type OffsetRange } from './expectation.js';
import type { BrokerOutage } from '../model/run-types.js';

/**
 * What a broker restart leaves as evidence beyond the final broker's report
 * (`--crash broker@FROM-TO`): the dead incarnation's report died with it, so
 * what it delivered to whom is read from the consumers' own subscriptions, and
 * what it accepted from the publisher's authority and discarded changes. Pure.
 */

/** No version is this high: the open end of a range of versions. */
export const NO_END = Number.MAX_SAFE_INTEGER;

/**
 * The subscriptions a broker that later died served: those whose WELCOME came
 * before the last outage began. Without outage times, those in an epoch other
 * than the final broker's (a broker without a log starts a new epoch; a durable
 * one keeps its epoch, and then only the times tell).
 */
export function servedByDeadBroker(
  subscriptions: readonly SubscriptionRecord[],
  outages: readonly BrokerOutage[],
  finalEpoch: number,
): SubscriptionRecord[] {
  const last = outages.at(-1);
  return subscriptions.filter((s) => (last === undefined ? s.epoch !== finalEpoch : s.at < last.from));
}

/** Where a subscription's contiguous run of versions began (exclusive), in the first incarnation, where offsets are
 * versions. */
function startOf(s: SubscriptionRecord): number {
  if (s.outcome === 'latest') return s.head; // it never saw the offsets up to WELCOME's head
  if (s.outcome === 'replayed') return s.from ?? 0;
  return 0; // a snapshot gave it every key's last write up to its head
}

/**
 * The versions a consumer never received from a broker that died: what that
 * broker accepted beyond what reached this consumer, as sorted ranges of
 * versions (the last open-ended, up to NO_END). [] when no broker died.
 *
 * Exact for the first incarnation: there the broker's offsets and the
 * publisher's versions are one sequence (both start at 1, nothing discarded
 * before the first crash), so each subscription it served received every
 * version from its start (0 for a snapshot, WELCOME's head for `latest`, `from`
 * for a replay) up to its `lastVersion` (contiguous from its start). A later
 * incarnation that also died (two restarts or more) is counted as having
 * delivered nothing: where its offsets begin among the versions is not known,
 * so this widens the window rather than guess. null: the report lists no
 * subscriptions (a foreign consumer may leave them out), so nothing is known.
 */
export function undeliveredByDeadBrokers(
  report: ConsumerReport,
  outages: readonly BrokerOutage[],
  finalEpoch: number,
): OffsetRange[] | null {
  const subscriptions = report.subscriptions;
  if (subscriptions === undefined) return outages.length === 0 ? [] : null;
  const dead = servedByDeadBroker(subscriptions, outages, finalEpoch);
  if (outages.length === 0 && dead.length === 0) return [];
  const first = outages[0];
  const received = dead
    .filter((s) => first !== undefined && s.at < first.from && s.outcome !== 'tooOld')
    .map((s): OffsetRange => [startOf(s) + 1, s.lastVersion ?? 0]);
  const gaps: OffsetRange[] = [];
  let next = 1;
  for (const [a, b] of mergeRanges(received)) {
    if (a > next) gaps.push([next, a - 1]);
    next = Math.max(next, b + 1);
  }
  gaps.push([next, NO_END]);
  return gaps;
}

/**
 * Whether the consumer's copy was replaced by a snapshot of a broker that came
 * back after the last outage (a relist: resync's re-subscription, durable's
 * fallback on a new epoch or `tooOld`): whatever a dead broker alone had
 * accepted is then gone from it, whether it had received it or not.
 */
export function relistedAfterRestart(report: ConsumerReport, outages: readonly BrokerOutage[]): boolean {
  const last = outages.at(-1);
  return last !== undefined && (report.subscriptions ?? []).some((s) => s.at >= last.from && s.outcome === 'snapshot');
}

/**
 * The changes the brokers accepted, in order: every version the publisher drew
 * up to its highest committed one, less those it discarded (sent to a broker
 * that died before acknowledging them: never made). Change i (1-based) is
 * `versions[i - 1]`, and the final broker's offset o is change `shift + o`:
 * `shift` is 0 unless a broker without a log restarted (its offsets start again
 * at 1; a durable broker's continue). null when that does not fit the final
 * broker's table: a key's last write there is not the authority's version, or a
 * key the final broker never wrote was not accepted before it.
 */
export interface ChangeSequence {
  versions: Float64Array;
  shift: number;
}

export function changeSequence(
  authority: { versions: ArrayLike<number> },
  discarded: ReadonlyArray<readonly [number, number]>,
  broker: { head: number; lastWriteOffsets: ArrayLike<number> },
  restarted: boolean,
): ChangeSequence | null {
  let highest = 0;
  for (let k = 0; k < authority.versions.length; k++) highest = Math.max(highest, authority.versions[k]!);
  const dropped = new Set(discarded.map(([, version]) => version));
  const versions = new Float64Array(highest);
  let count = 0;
  for (let v = 1; v <= highest; v++) if (!dropped.has(v)) versions[count++] = v;
  const sequence = { versions: versions.subarray(0, count), shift: restarted ? count - broker.head : 0 };
  if (sequence.shift < 0) return null;
  const before = sequence.shift === 0 ? 0 : sequence.versions[sequence.shift - 1]!;
  for (let key = 0; key < Math.max(broker.lastWriteOffsets.length, authority.versions.length); key++) {
    const offset = broker.lastWriteOffsets[key] ?? 0;
    const version = authority.versions[key] ?? 0;
    const fits = offset === 0 ? version <= before : sequence.versions[sequence.shift + offset - 1] === version;
    if (!fits) return null;
  }
  return sequence;
}

/** Ranges of the final broker's offsets as ranges of changes (ChangeSequence). */
export const shifted = (ranges: readonly OffsetRange[], shift: number): OffsetRange[] =>
  ranges.map(([a, b]) => [a + shift, b + shift]);

/** Ranges of versions as ranges of changes, clipped to the changes before the final broker's (a dead broker's);
 * versions are ascending. */
export function versionsAsChanges(ranges: readonly OffsetRange[], sequence: ChangeSequence): OffsetRange[] {
  const index = (version: number): number => {
    // The number of changes with a version <= `version` (binary search over the ascending versions).
    let lo = 0;
    let hi = sequence.shift;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sequence.versions[mid]! <= version) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return ranges.flatMap(([a, b]): OffsetRange[] => {
    const from = index(a - 1) + 1;
    const to = index(b);
    return to >= from ? [[from, to]] : [];
  });
}
