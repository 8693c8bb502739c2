import type { ConsumerCounters, LastWrites } from '@state-divergence/protocol';
import { isMissed, missedRanges, type ConsumerEvidence } from './missed.js';

export interface Divergence {
  /** Keys whose latest write this consumer missed (missed.ts): they will never arrive. */
  diverged: number;
  /** Keys whose latest write the broker accepted for it and it has not applied yet: they will arrive. */
  behind: number;
}

/**
 * Splits "keys wrong now" into what will never arrive and what is on its way,
 * so a frozen consumer's count is known without asking it (its state cannot
 * change while it is stopped). A key's latest write is the broker's (what the
 * publisher made but flow control held back is the publisher's backlog, not any
 * consumer's lag). It diverged if the consumer missed it, by the same rule the
 * checker explains a wrong key with at the end (missedRanges): the figure a
 * run shows live is the one its verdict will explain.
 */
export function liveDivergence(
  lastWrites: LastWrites,
  consumer: { name: string; lastOffset: number } & ConsumerEvidence,
): Divergence {
  const broker = {
    head: lastWrites.head,
    dropped: lastWrites.dropped[consumer.name] ?? [],
    disconnectedAt: lastWrites.disconnectedAt[consumer.name] ?? null,
  };
  const missed = missedRanges(broker, consumer);
  let diverged = 0;
  let behind = 0;
  for (const offset of lastWrites.offsets) {
    if (offset === 0) continue;
    if (isMissed(missed, offset)) diverged += 1;
    else if (offset > consumer.lastOffset) behind += 1;
  }
  return { diverged, behind };
}

/**
 * A running consumer's side of missedRanges from its counters, every field the checker reads from
 * its report at the end: with `endedEarly` too, so a subscription that ended for good (a partition
 * that outlasted its retries) is diverged live, as its verdict calls it, not "behind".
 */
export function countersEvidence(counters: ConsumerCounters | undefined): { lastOffset: number } & ConsumerEvidence {
  return {
    lastOffset: counters?.lastOffset ?? 0,
    coveredAfter: counters?.coveredAfter ?? 0,
    skippedRanges: counters?.skippedRanges ?? [],
    repairedRanges: counters?.repairedRanges,
    endedEarly: counters?.endedEarly ?? null,
  };
}

/** Keys whose newest change the publisher has made but the broker has not yet accepted (lossless backpressure). */
export function publisherBacklog(authority: Float64Array, lastWrites: LastWrites): number {
  let backlog = 0;
  for (let key = 0; key < authority.length; key++)
    if ((authority[key] ?? 0) > (lastWrites.offsets[key] ?? 0)) backlog += 1;
  return backlog;
}
