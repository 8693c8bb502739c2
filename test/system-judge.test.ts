/**
 * The checker of a run against a real system (systems-run/judge.ts): a wrong key is explained
 * when its last acknowledged write never reached the consumer, by the consumer's signals or as
 * "no signal at all"; a value never written, writes applied out of order, or a reached last write
 * the copy does not hold stay unexplained.
 */
import { evidenceOf, judgeConsumer, latestWrites, workload } from '@state-divergence/orchestrator/systems-internal';
import { Authority, type Versioned } from '@state-divergence/systems';
import { keyName } from '@state-divergence/protocol';

type Write = { key: string; value: string | null; seq: number; atMs: number; issuedMs: number };

/** The run's acknowledged writes, as publish.ts records them, and the authority they make. */
function writes(list: Array<[string, string | null, number]>) {
  const authority = new Authority();
  const bySeq = new Map<number, Write>();
  for (const [key, value, seq] of list) {
    authority.record(key, value, seq);
    bySeq.set(seq, { key, value, seq, atMs: 0, issuedMs: 0 });
  }
  return { entries: authority.entries(), bySeq, latest: latestWrites(bySeq) };
}

const report = (
  copy: Array<[string, string, number]>,
  appliedSeqs: number[],
  signals: { kind: 'trimmed' | 'relist' | 'cancel'; atMs: number }[] = [],
) => ({
  entries: copy,
  applied: appliedSeqs.length,
  highestSeq: Math.max(0, ...appliedSeqs),
  appliedSeqs,
  appliedAtMs: appliedSeqs.map(() => 0),
  relists: 0,
  signals,
  copy: new Map<string, Versioned>(copy.map(([key, value, seq]) => [key, { value, seq }])),
});

const run = writes([
  ['a', 'a1', 1],
  ['b', 'b1', 2],
  ['a', 'a2', 3],
  ['c', 'c1', 4],
  ['c', null, 5],
]);

test('a copy equal to the authority is correct', () => {
  const judged = judgeConsumer(
    report(
      [
        ['a', 'a2', 3],
        ['b', 'b1', 2],
      ],
      [1, 2, 3, 4, 5],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(judged).toEqual({ state: 'correct', wrongKeys: [], explained: [], unexplained: [], outOfOrder: 0 });
});

test('a last write that never reached it is explained: with no signal, or by the signals it had', () => {
  // a's last write (seq 3) and c's delete (seq 5) never came.
  const silent = judgeConsumer(
    report(
      [
        ['a', 'a1', 1],
        ['b', 'b1', 2],
        ['c', 'c1', 4],
      ],
      [1, 2, 4],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(silent.wrongKeys).toEqual(['a', 'c']);
  expect(silent.explained).toEqual([{ keys: 2, evidence: 'never delivered, no signal at all' }]);
  expect(silent.unexplained).toEqual([]);
  const told = judgeConsumer(
    report(
      [
        ['a', 'a1', 1],
        ['b', 'b1', 2],
      ],
      [1, 2, 4, 5],
      [{ kind: 'cancel', atMs: 0 }],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(told.explained).toEqual([{ keys: 1, evidence: 'never delivered; signals: cancel 1' }]);
});

test('a value the authority never had, writes out of order, a reached write not held: unexplained', () => {
  const forged = judgeConsumer(
    report(
      [
        ['a', 'a9', 3],
        ['b', 'b1', 2],
      ],
      [1, 2, 3, 4, 5],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(forged.unexplained).toEqual([{ key: 'a', why: 'holds a value the authority never had (seq 3)' }]);
  // a's seq 3 applied, then its seq 1: the copy ends at a1, and the order is the finding.
  const reordered = judgeConsumer(
    report(
      [
        ['a', 'a1', 1],
        ['b', 'b1', 2],
      ],
      [3, 1, 2, 4, 5],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(reordered.outOfOrder).toBe(1);
  expect(reordered.unexplained).toEqual([{ key: 'a', why: 'applied its writes out of order' }]);
  expect(reordered.explained).toEqual([]);
  // Every write applied in order, and yet a stale a1 (a relist from an older state would do it).
  const stale = judgeConsumer(
    report(
      [
        ['a', 'a1', 1],
        ['b', 'b1', 2],
      ],
      [1, 2, 3, 4, 5],
    ),
    run.entries,
    run.bySeq,
    run.latest,
  );
  expect(stale.unexplained).toEqual([{ key: 'a', why: 'its last write (seq 3) reached it, yet the copy differs' }]);
});

test('evidence counts each kind of signal', () => {
  expect(evidenceOf([])).toBe('never delivered, no signal at all');
  expect(
    evidenceOf([
      { kind: 'trimmed', atMs: 1 },
      { kind: 'relist', atMs: 2 },
      { kind: 'relist', atMs: 3 },
    ]),
  ).toBe('never delivered; signals: trimmed 1, relist 2');
});

test("the workload draws our publisher's keys: Zipf-skewed names from protocol's keyspace, values of --payload bytes", () => {
  const next = workload({ keys: 2000, seed: 1, payload: 64, deleteRatio: 0.02 });
  const drawn = Array.from({ length: 5000 }, next);
  const hot = drawn.filter((c) => c.key === keyName(0)).length;
  const cold = drawn.filter((c) => c.key === keyName(1999)).length;
  expect(hot).toBeGreaterThan(20 * Math.max(cold, 1));
  expect(drawn.every((c) => c.value === null || c.value.length === 64)).toBe(true);
  const deletes = drawn.filter((c) => c.value === null).length;
  expect(deletes).toBeGreaterThan(50);
  expect(deletes).toBeLessThan(160);
  // The same seed, the same changes.
  expect(Array.from({ length: 100 }, workload({ keys: 2000, seed: 1, payload: 64, deleteRatio: 0.02 }))).toEqual(
    drawn.slice(0, 100),
  );
});
