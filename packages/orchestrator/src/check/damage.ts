import type { Overlap } from '../model/check-types.js';

/**
 * Where the damage is, from the checker's wrong-key sets (pure):
 * - by key hotness: keys are ranked by how often the workload writes them
 *   (key 0 hottest; the Zipf weight falls with the index), cut into deciles;
 * - between stalled consumers: which keys are wrong for both, for only one, and
 *   the Jaccard overlap. Two replicas wrong about *different* keys disagree with
 *   each other as well as with the authority.
 */

/** Fraction of each hotness decile's keys that are wrong, hottest decile first. */
export function wrongByDecile(wrongKeys: number[], keys: number): number[] {
  const counts = new Array<number>(10).fill(0);
  // Key k is in decile floor(10k / keys), so decile d holds the keys from ceil(d keys / 10) up.
  const size = (d: number) => Math.ceil(((d + 1) * keys) / 10) - Math.ceil((d * keys) / 10);
  for (const key of wrongKeys) counts[Math.min(9, Math.floor((key * 10) / keys))]! += 1;
  return counts.map((n, d) => (size(d) === 0 ? 0 : Math.round((n / size(d)) * 1000) / 1000));
}

export function overlaps(consumers: Array<{ name: string; wrongKeys: number[] }>): Overlap[] {
  const result: Overlap[] = [];
  for (let i = 0; i < consumers.length; i++) {
    for (let j = i + 1; j < consumers.length; j++) {
      const a = new Set(consumers[i]!.wrongKeys);
      const b = new Set(consumers[j]!.wrongKeys);
      let both = 0;
      for (const key of a) if (b.has(key)) both += 1;
      const union = a.size + b.size - both;
      result.push({
        a: consumers[i]!.name,
        b: consumers[j]!.name,
        both,
        onlyA: a.size - both,
        onlyB: b.size - both,
        jaccard: union === 0 ? null : Math.round((both / union) * 1000) / 1000,
      });
    }
  }
  return result;
}
