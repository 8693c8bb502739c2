import type { BrokerReport } from '@state-divergence/protocol';
import { mergeRanges, type OffsetRange } from './expectation.js';

/**
 * What a consumer missed: the one answer the checker (which wrong keys are
 * explained), the expectation (how many keys should end wrong) and the live
 * view (diverged or behind) all use, so the live figure and the verdict cannot
 * disagree about what never reached a consumer.
 */

/** The broker's side, as of its head: from its report at the end, from a `lastWrites` answer while the run goes on. */
export interface BrokerEvidence {
  /** The highest offset assigned: nothing after it exists yet. */
  head: number;
  /** Offsets the broker dropped for this name. */
  dropped: OffsetRange[];
  /** The offset it disconnected this name at as a slow consumer, when the name has not subscribed again (null
   * otherwise). */
  disconnectedAt: number | null;
}

/** Why a name the broker's report has no entry for cannot be judged. */
export function noBrokerEntry(name: string): string {
  return (
    `the broker's report has no subscriber named ${name} (it never subscribed, or under another name): which ` +
    `writes it missed is unknown, so no wrong key can be explained`
  );
}

/**
 * The broker's side for one name, from its final report; undefined when the
 * report has no entry for it (it never subscribed, or said another name in its
 * HELLO): what it missed is then unknown, not "nothing".
 */
export function brokerEvidenceOf(broker: BrokerReport, name: string): BrokerEvidence | undefined {
  const subscriber = broker.subscribers[name];
  if (subscriber === undefined) return undefined;
  return { head: broker.head, dropped: subscriber.droppedRanges, disconnectedAt: subscriber.disconnectedAt };
}

/** The consumer's side: from its report at the end, from its counters while the run goes on. */
export interface ConsumerEvidence {
  /** Its stream reached it from this offset on: a `latest` subscription never sees [1, coveredAfter]. */
  coveredAfter: number;
  /** Skipped when it subscribed again at `latest`. */
  skippedRanges: OffsetRange[];
  /** Given back by deltas it asked for: not missed, whatever the broker dropped there. */
  repairedRanges?: OffsetRange[] | undefined;
  /**
   * Set when its subscription ended for good (it gave up reconnecting: a partition that outlasted its
   * idle timeout and its retries, an ERROR it cannot recover from): nothing after `lastOffset`, the last
   * offset it applied, reached it.
   */
  endedEarly?: string | null;
  lastOffset?: number;
}

/**
 * What a consumer missed and did not get back. A consumer that noticed a gap
 * and asked for it (a RESUME from N, or a subscribe from offset N, answered by
 * a delta ending at S) got every key written in [N + 1, S] again, whatever
 * the broker dropped there: those offsets are repaired, not missed. Ours never
 * asks under lossy (it subscribes again at `latest`); a foreign consumer may.
 */
function unrepaired(missed: OffsetRange[], repaired: OffsetRange[]): OffsetRange[] {
  let left = mergeRanges(missed);
  for (const [from, to] of mergeRanges(repaired)) {
    left = left.flatMap(([a, b]): OffsetRange[] => {
      if (b < from || a > to) return [[a, b]];
      const pieces: OffsetRange[] = [];
      if (a < from) pieces.push([a, from - 1]);
      if (b > to) pieces.push([to + 1, b]);
      return pieces;
    });
  }
  return left;
}

/**
 * The offsets a consumer missed and did not get back, sorted and merged:
 * dropped for it by the broker, skipped at a re-subscribe, before a late
 * `latest` subscription, after a disconnect it has not subscribed again from,
 * after the last offset it applied when its subscription ended for good;
 * less what a delta it asked for repaired. A key whose last write is in one of
 * them will never arrive: the consumer ends wrong about it.
 */
export function missedRanges(broker: BrokerEvidence, consumer: ConsumerEvidence): OffsetRange[] {
  const missed: OffsetRange[] = [...broker.dropped, ...consumer.skippedRanges];
  if (consumer.coveredAfter > 0) missed.push([1, consumer.coveredAfter]);
  if (broker.disconnectedAt !== null) missed.push([broker.disconnectedAt + 1, broker.head]);
  if (consumer.endedEarly && consumer.lastOffset !== undefined && consumer.lastOffset < broker.head)
    missed.push([consumer.lastOffset + 1, broker.head]);
  return unrepaired(missed, consumer.repairedRanges ?? []);
}

/**
 * A consumer whose process is gone (crashed, its successor not subscribed yet)
 * holds nothing, and what comes back is what its mode's subscription brings: a
 * snapshot gives back every key (all repaired: behind, not diverged), a
 * `latest` subscription nothing before it (all missed).
 */
export function goneConsumer(
  subscribeWith: 'latest' | 'snapshot',
  head: number,
): ConsumerEvidence & { lastOffset: number } {
  return subscribeWith === 'snapshot'
    ? { lastOffset: 0, coveredAfter: 0, skippedRanges: [], repairedRanges: head > 0 ? [[1, head]] : [] }
    : { lastOffset: 0, coveredAfter: head, skippedRanges: [] };
}

/** Is `offset` in one of the sorted, non-overlapping ranges? (binary search: keyspaces run to 1,000,000) */
export function isMissed(ranges: OffsetRange[], offset: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid]!;
    if (offset < a) hi = mid - 1;
    else if (offset > b) lo = mid + 1;
    else return true;
  }
  return false;
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
