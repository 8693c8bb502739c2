import type { OffsetRange } from './expectation.js';

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
