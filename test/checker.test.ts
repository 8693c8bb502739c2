import type { ConsumerReport } from '@state-divergence/protocol';
import { check, checkSafely, mergeVerdicts, type CheckInput } from '@state-divergence/orchestrator/internal';

const report = (
  entries: Array<[number, number, number]>,
  options: { endedEarly?: string; coveredAfter?: number } = {},
): ConsumerReport => ({
  role: 'consumer',
  applied: entries.length,
  lastOffset: entries.length,
  coveredAfter: options.coveredAfter ?? 0,
  latency: { appliedAt: new Float64Array(), latencyMs: new Float64Array() },
  lags: 0,
  resumes: 0,
  syncs: [],
  entries,
  endedEarly: options.endedEarly ?? null,
  disconnects: 0,
  reconnects: 0,
  skippedRanges: [],
});

// Nine changes (version = offset), keys 0..5. Key 3 is never written; key 5 is written, then deleted.
//   v1 k0=10  v2 k1=20  v3 k2=30  v4 k1=21  v5 k5=50  v6 k0=11  v7 k4=40  v8 k5 deleted  v9 k1=22
const history = {
  keys: [0, 1, 2, 1, 5, 0, 4, 5, 1],
  values: [10, 20, 30, 21, 50, 11, 40, 0, 22],
  deleted: [0, 0, 0, 0, 0, 0, 0, 1, 0],
};
const authority = { versions: [6, 9, 3, 0, 7, 8], values: [11, 22, 30, 0, 40, 0], deleted: [0, 0, 0, 0, 0, 1] };
const lastWriteOffsets = [6, 9, 3, 0, 7, 8];
const correct: Array<[number, number, number]> = [
  [0, 6, 11],
  [1, 9, 22],
  [2, 3, 30],
  [4, 7, 40],
];

const broker = { head: 9, lastWriteOffsets };
const run = (consumers: CheckInput['consumers']) => check({ authority, history, broker, consumers });
const one = (entries: Array<[number, number, number]>, missedRanges: Array<[number, number]> = [], coveredAfter = 0) =>
  run([{ name: 'c', faulted: true, report: report(entries, { coveredAfter }), dropped: missedRanges }]).consumers[0]!;

describe('checker', () => {
  test('a consumer holding exactly the authority is valid, and a deleted key it does not hold is right', () => {
    const result = run([{ name: 'c1', faulted: false, report: report(correct), dropped: [] }]);
    expect(result.verdict).toBe('valid');
    expect(result.consumers[0]).toMatchObject({
      verdict: 'valid',
      wrongKeys: [],
      lost: 0,
      unexpected: 0,
      unexplainedKeys: [],
    });
  });

  test('stale, missing and not-deleted keys are wrong and lost; a key never written is not wrong', () => {
    const c = one(
      [
        [0, 6, 11],
        [1, 4, 21],
        [4, 7, 40],
        [5, 5, 50],
      ],
      [[8, 9]],
    );
    expect(c.verdict).toBe('invalid');
    expect(c.wrongKeys).toEqual([1, 2, 5]);
    expect(c.lost).toBe(3);
    expect(c.unexpected).toBe(0);
  });

  test('every wrong key is explained when its last write was dropped for that consumer', () => {
    // Dropped offsets 8 and 9: key 5's delete and key 1's last write; key 2 (offset 3) missing is not explained.
    const c = one(
      [
        [0, 6, 11],
        [1, 4, 21],
        [4, 7, 40],
        [5, 5, 50],
      ],
      [[8, 9]],
    );
    expect(c.unexplainedKeys).toEqual([2]);
    const fully = one(
      [
        [0, 6, 11],
        [1, 4, 21],
        [2, 3, 30],
        [4, 7, 40],
        [5, 5, 50],
      ],
      [[8, 9]],
    );
    expect(fully.wrongKeys).toEqual([1, 5]);
    expect(fully.unexplainedKeys).toEqual([]);
  });

  test('a dropped last write that left the key right anyway is flagged too (the explanation must be exact)', () => {
    expect(one(correct, [[7, 7]]).unexplainedKeys).toEqual([4]);
  });

  test('a dropped delete of a key the consumer never held did no harm and needs no explanation', () => {
    expect(
      one(correct, [
        [5, 5],
        [8, 8],
      ]).unexplainedKeys,
    ).toEqual([]);
  });

  test('a late latest-subscriber is explained by what was published before it joined', () => {
    // Joined after offset 7: it only saw offsets 8 and 9.
    const late = one([[1, 9, 22]], [], 7);
    expect(late.wrongKeys).toEqual([0, 2, 4]);
    expect(late.unexplainedKeys).toEqual([]);
  });

  test('a value, version or key the publisher never emitted is unexpected', () => {
    const c = one([
      [0, 6, 12],
      [1, 9, 22],
      [2, 3, 30],
      [3, 2, 20],
      [4, 7, 40],
      [5, 8, 0],
    ]);
    // k0 v6 with a wrong value; k3 v2 (v2 was key 1); k5 v8 (v8 was a delete, never a value)
    expect(c.unexpected).toBe(3);
    expect(c.wrongKeys).toEqual([0, 3, 5]);
  });

  test('a consumer whose copy could not be gathered is unknown, never valid', () => {
    const result = run([
      { name: 'c1', faulted: false, report: report(correct), dropped: [] },
      { name: 'c2', faulted: false, report: null, dropped: [] },
    ]);
    expect(result.consumers[1]!.verdict).toBe('unknown');
    expect(result.verdict).toBe('unknown');
  });

  test('a wrong consumer the drain gave up on is unknown (maybe only late), not invalid', () => {
    const result = run([
      {
        name: 'c',
        faulted: true,
        report: report([[0, 6, 11]]),
        dropped: [],
        undrained: 'at offset 6, broker queued up to 9',
      },
    ]);
    expect(result.consumers[0]!.verdict).toBe('unknown');
    const right = run([{ name: 'c', faulted: true, report: report(correct), dropped: [], undrained: 'slow' }]);
    expect(right.consumers[0]!.verdict).toBe('valid');
  });

  test('verdicts merge with false beating unknown beating true', () => {
    expect(mergeVerdicts(['valid', 'unknown', 'invalid'])).toBe('invalid');
    expect(mergeVerdicts(['valid', 'unknown'])).toBe('unknown');
    expect(mergeVerdicts(['valid', 'valid'])).toBe('valid');
  });

  test('ended-early consumers carry the reason through', () => {
    const result = run([
      { name: 'c1', faulted: false, report: report([], { endedEarly: 'stream failed: idle timeout' }), dropped: [] },
    ]);
    expect(result.consumers[0]).toMatchObject({ endedEarly: 'stream failed: idle timeout', lost: 4 });
  });

  test('a checker that throws gives unknown with its error, for the run and each consumer, instead of failing the run', () => {
    const input: CheckInput = {
      authority,
      history,
      broker,
      consumers: [
        { name: 'c1', faulted: false, report: report(correct), dropped: [] },
        { name: 'c2', faulted: true, report: null, dropped: [], died: 'its process killed by SIGKILL mid-run' },
      ],
    };
    const result = checkSafely(input, () => {
      throw new RangeError('key 7 is out of range');
    });
    expect(result.verdict).toBe('unknown');
    expect(result.error).toBe('the checker failed: key 7 is out of range');
    expect(result.consumers.map((c) => [c.name, c.verdict, c.applied, c.endedEarly])).toEqual([
      ['c1', 'unknown', 4, null],
      ['c2', 'unknown', null, 'its process killed by SIGKILL mid-run'],
    ]);
    // Without a failure it is the checker itself.
    expect(checkSafely(input)).toEqual(check(input));
  });
});
