/**
 * Key names. The first ten are the control-plane keys the seed names; the rest
 * are anonymous config keys. Shared so the publisher, the checker and the
 * report never disagree about what key 5 is called.
 */
export const NAMED_KEYS = [
  'cluster/membership',
  'routing/table',
  'policy/authz',
  'policy/residency',
  'quota/tenant-limits',
  'cert/rotation',
  'flag/new-checkout',
  'flag/beta-ui',
  'service/discovery',
  'config/log-level',
] as const;

export function keyName(index: number): string {
  return NAMED_KEYS[index] ?? `config/key-${String(index).padStart(4, '0')}`;
}

/**
 * The workload's key choice: Zipf-skewed, clamped like the seed's system,
 *   weight(i) = clamp(floor(keys / (i + 1)), 1, 64).
 * A few dozen hot keys share the top weight; the long tail has weight 1.
 * Shared by the publisher (which samples it) and the orchestrator (which
 * computes what a given number of lost events should cost).
 */
export function keyWeight(index: number, keys: number): number {
  return Math.min(64, Math.max(1, Math.floor(keys / (index + 1))));
}

/** Probability of each key being chosen for one change. */
export function keyProbabilities(keys: number): number[] {
  const weights = Array.from({ length: keys }, (_, i) => keyWeight(i, keys));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/**
 * A chooser mapping a uniform u32 to a key index, by binary search over the cumulative weights:
 * the publisher's sampler, here so that every writer of the workload (ours, or a real system's
 * under `--system`) draws the same keys from the same seed.
 */
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
