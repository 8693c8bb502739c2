import { keyProbabilities } from '@state-divergence/protocol';

export type OffsetRange = [number, number];

/**
 * How many keys a consumer should end wrong about, from the workload's key
 * probabilities p_k and the offsets it missed (dropped for it, or skipped by a
 * `latest` subscription), out of N published. A key ends wrong iff its last
 * write is missed: for a missed range [a, b] that is "written at least once in
 * the range, then never after b", so
 *
 *   E = Σ_k Σ_r (1 − (1 − p_k)^(b_r − a_r + 1)) · (1 − p_k)^(N − b_r).
 *
 * (A dropped delete of a key the consumer never held does no harm; at the
 * default delete ratio of 2 % that is the formula's only overcount.)
 */
export function expectedWrong(keys: number, published: number, missed: OffsetRange[]): number {
  return Math.round(expectedWrongUnrounded(keys, published, missed) * 10) / 10;
}

/** The same sum before its rounding to a tenth of a key, for a model that rounds its own figure (experiment-points.ts
 * `churnPeak`). */
export function expectedWrongUnrounded(keys: number, published: number, missed: OffsetRange[]): number {
  const ranges = missed.filter(([a, b]) => b >= a && a >= 1);
  if (ranges.length === 0) return 0;
  let total = 0;
  for (const p of keyProbabilities(keys)) {
    const q = 1 - p;
    for (const [a, b] of ranges) total += (1 - q ** (Math.min(b, published) - a + 1)) * q ** Math.max(0, published - b);
  }
  return total;
}

/** Merges ranges into sorted, non-overlapping ones (dropped and skipped ranges may touch). */
export function mergeRanges(ranges: OffsetRange[]): OffsetRange[] {
  const sorted = ranges.filter(([a, b]) => b >= a).sort((x, y) => x[0] - y[0]);
  const merged: OffsetRange[] = [];
  for (const [a, b] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}
