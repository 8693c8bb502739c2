import { overlaps, wrongByDecile } from '../packages/orchestrator/src/damage.js';

describe('where the damage is', () => {
  test('wrong fraction per hotness decile, hottest keys (lowest indices) first', () => {
    // 100 keys: deciles of 10. Wrong: all of decile 0, half of decile 9.
    const wrong = [...Array.from({ length: 10 }, (_, i) => i), 90, 92, 94, 96, 98];
    expect(wrongByDecile(wrong, 100)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]);
    expect(wrongByDecile([], 2000)).toEqual(new Array(10).fill(0));
  });

  test('uneven keyspaces put every key in exactly one decile', () => {
    const all = Array.from({ length: 13 }, (_, i) => i);
    expect(wrongByDecile(all, 13).every((f) => f === 1 || f === 0)).toBe(true);
    expect(wrongByDecile(all, 13).filter((f) => f === 1).length).toBeGreaterThan(0);
  });

  test('overlap between stalled consumers: both, only one, Jaccard', () => {
    expect(overlaps([{ name: 'a', wrongKeys: [1, 2, 3, 4] }, { name: 'b', wrongKeys: [3, 4, 5] }])).toEqual([
      { a: 'a', b: 'b', both: 2, onlyA: 2, onlyB: 1, jaccard: 0.4 },
    ]);
    expect(overlaps([{ name: 'a', wrongKeys: [] }, { name: 'b', wrongKeys: [] }])[0]!.jaccard).toBeNull();
    expect(overlaps([{ name: 'a', wrongKeys: [1] }])).toEqual([]);
    expect(overlaps([{ name: 'a', wrongKeys: [7] }, { name: 'b', wrongKeys: [7] }, { name: 'c', wrongKeys: [] }])).toHaveLength(3);
  });
});
