import type { LastWrites } from '@state-divergence/protocol';
import { mergeRanges, type OffsetRange } from './expectation.js';

export interface Divergence {
  /** Keys whose latest write was dropped (or skipped) for this consumer: they will never arrive. */
  diverged: number;
  /** Keys whose latest write the broker accepted for it and it has not applied yet: they will arrive. */
  behind: number;
}

/** Is `offset` in one of the sorted, non-overlapping ranges? (binary search: keyspaces run to 1,000,000) */
function covered(ranges: OffsetRange[], offset: number): boolean {
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
 * Splits "keys wrong now" into what will never arrive and what is on its way,
 * from the broker's view alone, so a frozen consumer's count is known without
 * asking it (its state cannot change while it is stopped). A key's latest write
 * is the broker's (what the publisher made but flow control held back is the
 * publisher's backlog, not any consumer's lag). It diverged if that write was
 * dropped for this consumer, or skipped: before a `latest` subscription began
 * (`coveredAfter`), in a re-subscribe's gap, or after a disconnect it has not
 * yet resubscribed from.
 */
export function liveDivergence(lastWrites: LastWrites, consumer: { name: string; lastOffset: number; coveredAfter: number; skippedRanges: OffsetRange[] }): Divergence {
  const disconnected = lastWrites.disconnectedAt[consumer.name];
  const missed = mergeRanges([
    ...(lastWrites.dropped[consumer.name] ?? []),
    ...consumer.skippedRanges,
    ...(consumer.coveredAfter > 0 ? [[1, consumer.coveredAfter] as OffsetRange] : []),
    ...(disconnected === undefined ? [] : [[disconnected + 1, lastWrites.head] as OffsetRange]),
  ]);
  let diverged = 0;
  let behind = 0;
  for (const offset of lastWrites.offsets) {
    if (offset === 0) continue;
    if (covered(missed, offset)) diverged += 1;
    else if (offset > consumer.lastOffset) behind += 1;
  }
  return { diverged, behind };
}

/** Keys whose newest change the publisher has made but the broker has not yet accepted (lossless backpressure). */
export function publisherBacklog(authority: Float64Array, lastWrites: LastWrites): number {
  let backlog = 0;
  for (let key = 0; key < authority.length; key++) if ((authority[key] ?? 0) > (lastWrites.offsets[key] ?? 0)) backlog += 1;
  return backlog;
}
