import { assembleOutcome, overlaps, wrongByDecile } from '@state-divergence/orchestrator/internal';
import { consumerReport, gathered, held } from './helpers/gathered-run.js';

describe('where the damage is', () => {
  test('wrong fraction per hotness decile, hottest keys (lowest indices) first', () => {
    // 100 keys: deciles of 10. Wrong: all of decile 0, half of decile 9.
    const wrong = [...Array.from({ length: 10 }, (_, i) => i), 90, 92, 94, 96, 98];
    expect(wrongByDecile(wrong, 100)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]);
    expect(wrongByDecile([], 2000)).toEqual(new Array(10).fill(0));
  });

  test('uneven keyspaces put every key in exactly one decile', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => i);
    // 13 keys: every decile holds one or two keys, so all wrong is 1 everywhere.
    expect(wrongByDecile(keys(13), 13)).toEqual(new Array(10).fill(1));
    // 5 keys (fewer than ten): the deciles that hold a key are 1, the empty ones 0, and exactly five hold one.
    const five = wrongByDecile(keys(5), 5);
    expect(five.filter((f) => f === 1)).toHaveLength(5);
    expect(five.filter((f) => f === 0)).toHaveLength(5);
    // One wrong key shows up in exactly one decile, as 1 / that decile's size.
    for (const key of [0, 6, 12]) {
      const one = wrongByDecile([key], 13);
      expect(one.filter((f) => f > 0)).toHaveLength(1);
      expect([0.5, 1]).toContain(one.find((f) => f > 0));
    }
  });

  test('overlap between stalled consumers: both, only one, Jaccard', () => {
    expect(
      overlaps([
        { name: 'a', wrongKeys: [1, 2, 3, 4] },
        { name: 'b', wrongKeys: [3, 4, 5] },
      ]),
    ).toEqual([{ a: 'a', b: 'b', both: 2, onlyA: 2, onlyB: 1, jaccard: 0.4 }]);
    expect(
      overlaps([
        { name: 'a', wrongKeys: [] },
        { name: 'b', wrongKeys: [] },
      ])[0]!.jaccard,
    ).toBeNull();
    expect(overlaps([{ name: 'a', wrongKeys: [1] }])).toEqual([]);
    expect(
      overlaps([
        { name: 'a', wrongKeys: [7] },
        { name: 'b', wrongKeys: [7] },
        { name: 'c', wrongKeys: [] },
      ]),
    ).toHaveLength(3);
  });
});

describe("a run's faultedOverlap compares only the faulted consumers that ended wrong", () => {
  test('one stalled consumer wrong, one slowed consumer correct: no pair (the correct one disagrees with nobody)', () => {
    // consumer-a missed offsets 9-12 (keys 2, 3, 0, 4 wrong); consumer-b holds the authority; consumer-c is healthy.
    const wrong = consumerReport(held([5, 7, 3, 4, 6, 8]));
    const right = consumerReport(held([11, 7, 9, 10, 12, 8]));
    const run = gathered(null, [
      ['consumer-a', wrong],
      ['consumer-b', right],
      ['consumer-c', right],
    ]);
    run.consumers[2]!.faulted = false;
    const result = assembleOutcome(run);
    const check = (name: string) => result.consumers.find((c) => c.name === name)!;
    expect(check('consumer-a').wrongKeys.length).toBeGreaterThan(0);
    expect(check('consumer-b').wrongKeys).toEqual([]);
    expect(result.damage.faultedOverlap).toEqual([]);
  });

  test('two faulted consumers both wrong: their pair is there', () => {
    const a = consumerReport(held([11, 7, 9, 10, 6, 8])); // k4 wrong
    const b = consumerReport(held([5, 7, 9, 10, 12, 8])); // k0 wrong
    const result = assembleOutcome(
      gathered(null, [
        ['consumer-a', a],
        ['consumer-b', b],
      ]),
    );
    expect(result.damage.faultedOverlap).toEqual([
      { a: 'consumer-a', b: 'consumer-b', both: 0, onlyA: 1, onlyB: 1, jaccard: 0 },
    ]);
  });
});
