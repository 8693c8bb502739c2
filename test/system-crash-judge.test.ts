/**
 * A server restart's authority (systems-run/restart-authority.ts) and the judge's crash evidence
 * (judge.ts): what the restarted server holds is the authority, a key acknowledged before the
 * crash and gone is lost by the server and judged for no consumer, a failed write the server kept
 * joins the authority, and a wrong key's evidence says when its write came against the restarts.
 */
import { judgeConsumer, judgedAuthority, latestWrites } from '@state-divergence/orchestrator/systems-internal';
import { Authority, type TargetSystem, type Versioned } from '@state-divergence/systems';

type Write = { key: string; value: string | null; seq: number; atMs: number; issuedMs: number };
/** A write that failed, as a test gives it: issued when it failed. */
type FailedWrite = Omit<Write, 'issuedMs'>;

/** The acknowledged writes (key, value, seq, ms since publishing started) as publish.ts records them. */
function published(list: Array<[string, string | null, number, number]>, failed: FailedWrite[] = []) {
  const authority = new Authority();
  const bySeq = new Map<number, Write>();
  for (const [key, value, seq, atMs] of list) {
    authority.record(key, value, seq);
    bySeq.set(seq, { key, value, seq, atMs, issuedMs: atMs });
  }
  const failures = failed.map(({ key, value, atMs }) => ({ key, value, atMs, issuedMs: atMs, message: 'server down' }));
  return { authority, published: { issued: list.length + failed.length, failed: failures, bySeq, endedMs: 5_000 } };
}

/** A system whose state is `held`: all judgedAuthority asks of one. */
const holding = (held: Array<[string, string, number]>) =>
  ({ state: async () => new Map(held.map(([key, value, seq]) => [key, { value, seq }])) }) as unknown as TargetSystem;

const endpoint = { url: 'test://', port: 0 };
/** Killed at 1 s, restarted at 2 s, ready at 2.1 s. */
const restart = [{ killedAt: 1, restartedAt: 2, readyAt: 2.1 }];

const copyOf = (entries: Array<[string, string, number]>) =>
  new Map<string, Versioned>(entries.map(([key, value, seq]) => [key, { value, seq }]));

const report = (
  copy: Array<[string, string, number]>,
  appliedSeqs: number[],
  signals: { kind: 'disconnect' | 'reconnect'; atMs: number }[] = [],
) => ({
  entries: copy,
  applied: appliedSeqs.length,
  highestSeq: Math.max(0, ...appliedSeqs),
  appliedSeqs,
  appliedAtMs: appliedSeqs.map(() => 0),
  relists: 0,
  signals,
  copy: copyOf(copy),
});

test('without a restart the authority is the acknowledged writes, and the server is not read', async () => {
  const { authority, published: run } = published([['a', 'a1', 1, 100]]);
  const never = { state: () => Promise.reject(new Error('read')) } as unknown as TargetSystem;
  const judged = await judgedAuthority(never, endpoint, 'p', run, authority, []);
  expect([...judged.entries]).toEqual([['a', { value: 'a1', seq: 1 }]]);
  expect(judged.lost).toEqual([]);
});

test('a server that came back empty: keys acknowledged before the crash are lost by it; writes after it are the authority', async () => {
  const { authority, published: run } = published([
    ['a', 'a1', 1, 100],
    ['b', 'b1', 2, 200],
    ['a', 'a2', 5, 2_500],
  ]);
  const judged = await judgedAuthority(holding([['a', 'a2', 5]]), endpoint, 'p', run, authority, restart);
  expect([...judged.entries]).toEqual([['a', { value: 'a2', seq: 5 }]]);
  expect(judged.lost).toEqual(['b']);
  expect(judged.findings).toEqual([]);
});

test('a failed write the server kept joins the authority; a value never written and a lost post-restart write are findings', async () => {
  const { authority, published: run } = published(
    [
      ['a', 'a1', 1, 100],
      ['c', 'c1', 6, 2_600],
    ],
    [{ key: 'a', value: 'a3', seq: 0, atMs: 1_050 }],
  );
  const judged = await judgedAuthority(
    holding([
      ['a', 'a3', 4],
      ['x', 'forged', 9],
    ]),
    endpoint,
    'p',
    run,
    authority,
    restart,
  );
  expect(judged.keptFailed).toBe(1);
  expect(judged.bySeq.get(4)).toEqual({ key: 'a', value: 'a3', seq: 4, atMs: 1_050, issuedMs: 1_050 });
  expect(judged.findings).toEqual([
    { key: 'x', why: 'the server holds a value no write of the run had (seq 9)' },
    { key: 'c', why: 'the server lost seq 6, acknowledged after its restart' },
  ]);
});

test("the judge: lost keys are no consumer's; a write missed across the restart is explained by the reconnect", async () => {
  const { authority, published: run } = published([
    ['a', 'a1', 1, 100],
    ['b', 'b1', 2, 200],
    ['c', 'c1', 5, 2_200],
    ['d', 'd1', 6, 3_000],
  ]);
  const judged = await judgedAuthority(
    holding([
      ['c', 'c1', 5],
      ['d', 'd1', 6],
    ]),
    endpoint,
    'p',
    run,
    authority,
    restart,
  );
  const startedAt = 1_000_000;
  // Still holds a and b (lost by the server), missed c (written before its reconnect at 2.5 s), got d.
  const consumer = report(
    [
      ['a', 'a1', 1],
      ['b', 'b1', 2],
      ['d', 'd1', 6],
    ],
    [1, 2, 6],
    [
      { kind: 'disconnect', atMs: startedAt + 1_000 },
      { kind: 'reconnect', atMs: startedAt + 2_500 },
    ],
  );
  const crash = { lost: new Set(judged.lost), failed: [], serverRestarts: restart, restarts: [], startedAt };
  const verdict = judgeConsumer(consumer, judged.entries, judged.bySeq, latestWrites(judged.bySeq), crash);
  expect(verdict.wrongKeys).toEqual(['c']);
  expect(verdict.explained).toEqual([
    {
      keys: 1,
      evidence:
        'never delivered; signals: disconnect 1, reconnect 1; written while it was away from the server ' +
        '(killed at 1 s, ready at 2.1 s, its reconnect at 2.500 s)',
    },
  ]);
  expect(verdict.unexplained).toEqual([]);
  // A fresh process (a --crash of the consumer) that missed c: written before its restart.
  const fresh = judgeConsumer(report([['d', 'd1', 6]], [6]), judged.entries, judged.bySeq, latestWrites(judged.bySeq), {
    ...crash,
    serverRestarts: [],
    restarts: [{ killedAt: 2, startedAt: 2.8 }],
  });
  expect(fresh.explained).toEqual([
    {
      keys: 1,
      evidence:
        'never delivered, no signal at all; written before its restart (killed at 2 s, a fresh process from 2.8 s)',
    },
  ]);
  // Issued before the fresh process was up (2.8 s), acknowledged after it: it may have reached the server
  // before the fresh subscription did, so it is explained by the restart too.
  const inFlight = new Map([...judged.bySeq].map(([seq, w]) => [seq, { ...w, atMs: 2_900, issuedMs: 2_790 }]));
  const late = judgeConsumer(report([['d', 'd1', 6]], [6]), judged.entries, inFlight, latestWrites(inFlight), {
    ...crash,
    serverRestarts: [],
    restarts: [{ killedAt: 2, startedAt: 2.8 }],
  });
  expect(late.explained.map((e) => e.evidence)).toEqual([
    'never delivered, no signal at all; written before its restart (killed at 2 s, a fresh process from 2.8 s)',
  ]);
  // A value that failed at the crash and reached it anyway: explained by the crash, not a finding.
  const failedRun = published([['a', 'a1', 1, 100]], [{ key: 'a', value: 'a2', seq: 0, atMs: 1_100 }]);
  const held = judgeConsumer(
    report([['a', 'a2', 3]], [3]),
    failedRun.authority.entries(),
    failedRun.published.bySeq,
    latestWrites(failedRun.published.bySeq),
    { ...crash, lost: new Set(), failed: failedRun.published.failed },
  );
  expect(held.explained).toEqual([
    { keys: 1, evidence: 'holds a write that failed at the crash (never acknowledged, yet delivered)' },
  ]);
});
