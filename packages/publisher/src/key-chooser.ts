import { keyWeight } from '@state-divergence/protocol';

/** The weights are the protocol package's keyWeight (shared with the orchestrator's expectations). */
export { keyProbabilities, keyWeight } from '@state-divergence/protocol';

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
