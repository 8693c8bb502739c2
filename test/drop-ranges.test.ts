/**
 * The broker's DropRanges: the checker explains a wrong key by the drop ranges, so
 * they must hold exactly the offsets dropped, as few inclusive runs as there are.
 */
import fc from 'fast-check';
import { DropRanges } from '@state-divergence/broker/internal';

/** The model: the distinct offsets, sorted, cut into maximal runs. */
function runs(offsets: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const offset of [...new Set(offsets)].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last !== undefined && last[1] + 1 === offset) last[1] = offset;
    else out.push([offset, offset]);
  }
  return out;
}

test('in order, as drops come: runs extend, a gap starts a new range', () => {
  const log = new DropRanges();
  for (const offset of [2, 3, 4, 7, 9, 10]) log.add(offset);
  expect(log.ranges).toEqual([
    [2, 4],
    [7, 7],
    [9, 10],
  ]);
  expect(log.count).toBe(6);
});

test('an offset out of order joins, bridges or precedes the right range, and a repeat is counted once', () => {
  const log = new DropRanges();
  for (const offset of [10, 20, 5, 11, 9, 7, 8, 20, 1]) log.add(offset);
  expect(log.ranges).toEqual([
    [1, 1],
    [5, 5],
    [7, 11],
    [20, 20],
  ]);
  expect(log.count).toBe(8);
});

test("for any offsets in any order, the ranges are the model's runs and the count the distinct offsets", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 300 }), (offsets) => {
      const log = new DropRanges();
      for (const offset of offsets) log.add(offset);
      expect(log.ranges).toEqual(runs(offsets));
      expect(log.count).toBe(new Set(offsets).size);
    }),
  );
});
