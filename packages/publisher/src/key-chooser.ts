/**
 * Zipf-skewed key choice, clamped like the seed's system:
 *   weight(i) = clamp(floor(keys / (i + 1)), 1, 64)
 * A few dozen hot keys share the top weight, the long tail has weight 1: hot
 * keys are rewritten constantly, most keys rarely.
 */
export function keyWeight(index: number, keys: number): number {
  return Math.min(64, Math.max(1, Math.floor(keys / (index + 1))));
}

/** Probability of each key being chosen for one change (used by the report and tests). */
export function keyProbabilities(keys: number): number[] {
  const weights = Array.from({ length: keys }, (_, i) => keyWeight(i, keys));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** Returns a chooser mapping a uniform u32 to a key index, by binary search over cumulative weights. */
export function createKeyChooser(keys: number): (u32: number) => number {
  const cumulative = new Float64Array(keys);
  let total = 0;
  for (let i = 0; i < keys; i++) {
    total += keyWeight(i, keys);
    cumulative[i] = total;
  }
  return (u32) => {
    const target = (u32 / 0x1_0000_0000) * total;
    let low = 0;
    let high = keys - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return low;
  };
}
