import { mergeRanges, type OffsetRange } from './expectation.js';

/**
 * What a consumer missed and did not get back. A consumer that noticed a gap
 * and asked for it (a RESUME from N, or a subscribe from offset N, answered by
 * a delta ending at S) got every key written in [N + 1, S] again, whatever
 * the broker dropped there: those offsets are repaired, not missed. Ours never
 * asks under lossy (it subscribes again at `latest`); a foreign consumer may.
 */
export function unrepaired(missed: OffsetRange[], repaired: OffsetRange[]): OffsetRange[] {
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
