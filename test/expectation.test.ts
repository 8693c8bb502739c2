/**
 * The pure pieces behind "expected" and "diverged / behind": the expectation
 * from missed offsets, range merging, and the live split from the broker's view.
 */
import { keyProbabilities } from '@state-divergence/protocol';
import {
  churnPeak,
  expectedWrong,
  liveDivergence,
  mergeRanges,
  missedKeys,
  publisherBacklog,
} from '@state-divergence/orchestrator/internal';

describe('expectedWrong', () => {
  test('one key (p = 1): wrong exactly when the last change was missed', () => {
    expect(expectedWrong(1, 100, [[90, 100]])).toBe(1);
    expect(expectedWrong(1, 100, [[10, 20]])).toBe(0); // rewritten after the gap
    expect(expectedWrong(1, 100, [])).toBe(0);
  });

  test('is the closed form summed over keys and ranges', () => {
    const keys = 50;
    const p = keyProbabilities(keys);
    const N = 1000;
    const ranges: Array<[number, number]> = [
      [101, 300],
      [801, 900],
    ];
    const byHand = p.reduce(
      (sum, pk) => sum + ranges.reduce((s, [a, b]) => s + (1 - (1 - pk) ** (b - a + 1)) * (1 - pk) ** (N - b), 0),
      0,
    );
    expect(expectedWrong(keys, N, ranges)).toBeCloseTo(byHand, 1);
    // Losing the tail costs more than losing the same number of changes earlier: churn repairs.
    expect(expectedWrong(keys, N, [[801, 1000]])).toBeGreaterThan(expectedWrong(keys, N, [[101, 300]]));
  });

  test('ranges merge when they overlap or touch, and stay apart otherwise', () => {
    expect(
      mergeRanges([
        [5, 9],
        [1, 3],
        [4, 4],
        [12, 20],
        [15, 16],
      ]),
    ).toEqual([
      [1, 9],
      [12, 20],
    ]);
    expect(mergeRanges([[3, 2]])).toEqual([]);
  });

  test('missed keys are the keys written at the missed offsets', () => {
    const history = [7, 7, 2, 9, 2]; // offset 1 wrote key 7, ...
    expect(
      [
        ...missedKeys(
          [
            [2, 3],
            [5, 5],
          ],
          (o) => history[o - 1],
        ),
      ].sort(),
    ).toEqual([2, 7]);
  });
});

describe('live divergence, from the broker alone', () => {
  // Keys 0..4 last written at offsets 10, 20, 30, 0 (never), 40; head 40.
  const lastWrites = {
    head: 40,
    offsets: new Float64Array([10, 20, 30, 0, 40]),
    dropped: { c: [[18, 25]] as Array<[number, number]> },
    disconnectedAt: {},
  };

  test('a dropped latest write has diverged; an accepted one it has not applied is behind; an applied one is neither', () => {
    expect(liveDivergence(lastWrites, { name: 'c', lastOffset: 29, coveredAfter: 0, skippedRanges: [] })).toEqual({
      diverged: 1,
      behind: 2,
    });
    expect(liveDivergence(lastWrites, { name: 'c', lastOffset: 40, coveredAfter: 0, skippedRanges: [] })).toEqual({
      diverged: 1,
      behind: 0,
    });
    expect(liveDivergence(lastWrites, { name: 'healthy', lastOffset: 40, coveredAfter: 0, skippedRanges: [] })).toEqual(
      { diverged: 0, behind: 0 },
    );
  });

  test('skipped by a latest subscription, or after a disconnect it has not come back from, is diverged too', () => {
    expect(liveDivergence(lastWrites, { name: 'late', lastOffset: 40, coveredAfter: 25, skippedRanges: [] })).toEqual({
      diverged: 2,
      behind: 0,
    });
    expect(
      liveDivergence(lastWrites, { name: 'r', lastOffset: 40, coveredAfter: 0, skippedRanges: [[35, 40]] }),
    ).toEqual({ diverged: 1, behind: 0 });
    expect(
      liveDivergence(
        { ...lastWrites, disconnectedAt: { gone: 15 } },
        { name: 'gone', lastOffset: 15, coveredAfter: 0, skippedRanges: [] },
      ),
    ).toEqual({ diverged: 3, behind: 0 });
  });

  test("what the publisher made but the broker has not accepted is the publisher's backlog, nobody's lag", () => {
    expect(publisherBacklog(new Float64Array([10, 22, 30, 5, 40]), lastWrites)).toBe(2);
  });
});

describe("churnPeak uses the report's expectation", () => {
  // The formula churnPeak had of its own before it called expectedWrong's sum, kept here to show the figure did not
  // move.
  const formerSum = (keys: number, dropped: number, after: number) =>
    keyProbabilities(keys).reduce((sum, p) => sum + (1 - (1 - p) ** dropped) * (1 - p) ** after, 0) / keys;
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  /** The former churnPeak, line for line. */
  function formerPeak(
    keys: number,
    model: { stallSeconds: number; afterSeconds: number; absorbed: (rate: number) => number },
    rates: number[],
  ) {
    let best = { rate: rates[0] ?? 0, expectedFraction: 0 };
    for (const rate of rates) {
      const expected = formerSum(
        keys,
        Math.max(0, rate * model.stallSeconds - model.absorbed(rate)),
        rate * model.afterSeconds,
      );
      if (expected > best.expectedFraction) best = { rate, expectedFraction: round3(expected) };
    }
    return best;
  }
  /** churnPeak on a one-rate grid that gives exactly these D and A: rate 1, a stall of D + absorbed seconds, A seconds
   * after. */
  const peakAt = (keys: number, dropped: number, after: number) =>
    churnPeak(keys, { stallSeconds: dropped + 7, afterSeconds: after, absorbed: () => 7 }, [1]);

  test.each([
    [50, 20, 0],
    [50, 20, 300],
    [2000, 400, 800],
    [2000, 1, 10],
    [10_000, 3000, 6000],
    [10_000, 812.5, 1625],
    [100_000, 12_345, 4_000],
    [2000, 0, 800],
  ])(
    'keys %i, D %d, A %d: the same expected fraction as the former formula, to the last digit',
    (keys, dropped, after) => {
      const { expectedFraction } = peakAt(keys, dropped, after);
      expect(expectedFraction).toBe(round3(formerSum(keys, dropped, after)));
    },
  );

  test("it sums unrounded: the report's figure, rounded to a tenth of a key, would move the fraction of a small keyspace", () => {
    expect(peakAt(50, 20, 0).expectedFraction).toBe(0.237);
    expect(round3(expectedWrong(50, 20, [[1, 20]]) / 50)).toBe(0.238);
  });

  test('over a grid of rates it picks the same peak as the former formula: damage first grows with the rate, then falls', () => {
    const keys = 2000;
    const model = { stallSeconds: 2, afterSeconds: 2, absorbed: (rate: number) => rate / 8 + 300 };
    const rates = Array.from({ length: 61 }, (_, i) => Math.round(200 * 1000 ** (i / 60)));
    const peak = churnPeak(keys, model, rates);
    expect(peak).toEqual(formerPeak(keys, model, rates));
    expect(peak.rate).toBeGreaterThan(rates[0]!);
    expect(peak.rate).toBeLessThan(rates.at(-1)!);
  });
});
