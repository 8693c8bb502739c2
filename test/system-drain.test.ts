/**
 * The drain of a run against a real system (systems-run/drain.ts): when it stops, and what it calls a
 * copy still changing at its bound. The rule is pure; the loop is driven by scripted probes (a report is
 * all the drain reads of one), so a backlog applied over 3 s, or one that never ends, needs no server.
 */
import type { Probe, ProbeReport, Signal, Versioned } from '@state-divergence/systems';
import {
  appliedInLastSecond,
  drain,
  drainedState,
  drainEnd,
  drainRule,
  lastChangeMs,
} from '@state-divergence/orchestrator/systems-internal';

const RULE = { minMs: 2_000, quietMs: 2_000, boundMs: 42_000 };
const poll = (elapsedMs: number, ...copies: [number, number][]) => ({
  elapsedMs,
  copies: copies.map(([wrong, quietForMs]) => ({ wrong, quietForMs })),
});

test('the minimum is the old drain (2d, at least 2 s), the bound twice the publishing time, never below it', () => {
  expect(drainRule(1, 21)).toEqual({ minMs: 2_000, quietMs: 2_000, boundMs: 42_000 });
  expect(drainRule(4, 12)).toEqual({ minMs: 8_000, quietMs: 2_000, boundMs: 24_000 });
  expect(drainRule(0.5, 0.5)).toEqual({ minMs: 2_000, quietMs: 2_000, boundMs: 2_000 });
  expect(drainRule(10, 3)).toMatchObject({ minMs: 20_000, boundMs: 20_000 });
});

test('every copy correct ends it at once, before the minimum too', () => {
  expect(drainEnd(poll(0, [0, 0], [0, 0]), RULE)).toBe('converged');
  expect(drainEnd(poll(50_000, [0, 10]), RULE)).toBe('converged');
});

test('a wrong copy is given the minimum whether it changes or not, as the old drain gave it', () => {
  expect(drainEnd(poll(1_999, [0, 9_000], [5, 9_000]), RULE)).toBeNull();
  expect(drainEnd(poll(1_000, [5, 0]), RULE)).toBeNull();
});

test('past the minimum: it ends once no wrong copy has changed for the quiet period', () => {
  expect(drainEnd(poll(2_000, [5, 2_000]), RULE)).toBe('quiet');
  expect(drainEnd(poll(2_000, [5, 1_999]), RULE)).toBeNull();
  // A backlog still being applied 20 s on (etcd's 40,000 events) holds it, the old deadline long past.
  expect(drainEnd(poll(20_000, [1_817, 150]), RULE)).toBeNull();
  // A correct copy's own changes hold nothing; every wrong one must be quiet.
  expect(drainEnd(poll(2_500, [0, 0], [5, 3_000]), RULE)).toBe('quiet');
  expect(drainEnd(poll(2_500, [3, 100], [5, 3_000]), RULE)).toBeNull();
});

test('the bound ends a copy that changes forever; one quiet by then is a verdict, not the bound', () => {
  expect(drainEnd(poll(41_999, [5, 100]), RULE)).toBeNull();
  expect(drainEnd(poll(42_000, [5, 100]), RULE)).toBe('bound');
  expect(drainEnd(poll(42_000, [5, 5_000]), RULE)).toBe('quiet');
});

const signal = (kind: string, atMs: number): Signal => ({ kind, atMs }) as Signal;

test("a copy's last change: its last apply or relist; an error or a reconnect changes nothing", () => {
  expect(lastChangeMs({ appliedAtMs: [10, 20, 30], signals: [] })).toBe(30);
  expect(lastChangeMs({ appliedAtMs: [10], signals: [signal('relist', 50), signal('error', 90)] })).toBe(50);
  expect(lastChangeMs({ appliedAtMs: [], signals: [signal('reconnect', 5)] })).toBe(-Infinity);
});

test('applied in the last second: the applies after end − 1 s', () => {
  expect(appliedInLastSecond({ appliedAtMs: [100, 900, 1_100, 1_500, 2_000] }, 2_000)).toBe(3);
  expect(appliedInLastSecond({ appliedAtMs: [100] }, 5_000)).toBe(0);
  expect(appliedInLastSecond({ appliedAtMs: [] }, 5_000)).toBe(0);
});

test('a wrong copy that changed within the quiet period before the end is catching up; a quiet one is wrong', () => {
  const end = { quietMs: 2_000, endedAtMs: 10_000 };
  expect(drainedState('wrong', { appliedAtMs: [9_900], signals: [] }, end)).toBe('catching-up');
  expect(drainedState('wrong', { appliedAtMs: [7_000], signals: [] }, end)).toBe('wrong');
  expect(drainedState('wrong', { appliedAtMs: [7_000], signals: [signal('relist', 9_000)] }, end)).toBe('catching-up');
  expect(drainedState('correct', { appliedAtMs: [9_990], signals: [] }, end)).toBe('correct');
});

/**
 * A probe that applies one of `target`'s keys every `everyMs` for `forMs`, its copy holding the first
 * `reaches` of them (fewer than all: it stays wrong, re-applying the last one as it goes on).
 */
function scriptedProbe(
  target: Map<string, Versioned>,
  everyMs: number,
  forMs = Infinity,
  reaches = target.size,
): Probe {
  const since = Date.now();
  const keys = [...target.keys()];
  const report = async () => {
    const steps = Math.floor((Math.min(Date.now(), since + forMs) - since) / everyMs);
    const appliedAtMs = Array.from({ length: steps }, (_, i) => since + (i + 1) * everyMs);
    const copy = new Map(keys.slice(0, Math.min(steps, reaches)).map((k) => [k, target.get(k)!]));
    const base = { entries: [], applied: steps, highestSeq: steps, appliedSeqs: [], relists: 0, signals: [] };
    return { ...base, appliedAtMs, copy } as ProbeReport & { copy: Map<string, Versioned> };
  };
  return { pid: 0, freeze() {}, thaw() {}, report, stop: async () => {}, kill: async () => {} };
}

const authority = (n: number) =>
  new Map(Array.from({ length: n }, (_, i) => [`k${i}`, { value: `v${i}`, seq: i + 1 }]));
const probes = (probe: Probe) => new Map([['c', probe]]);
const never = new AbortController().signal;

test('a backlog applied past the minimum is drained to its end, then correct', async () => {
  // 12 keys, one every 100 ms: correct at 1.2 s, past the 0.5 s minimum the old drain stopped at.
  const target = authority(12);
  const rule = { minMs: 500, quietMs: 500, boundMs: 10_000 };
  const ended = await drain(['c'], probes(scriptedProbe(target, 100)), target, rule, never);
  expect(ended.drain).toMatchObject({ ended: 'converged', ...rule });
  expect(ended.drain.ms).toBeGreaterThanOrEqual(1_200);
  expect(ended.reports[0]!.copy.size).toBe(12);
});

test('a copy that changes for ever ends at the bound, its consumer catching up; a stuck one at quiet', async () => {
  const target = authority(10);
  const rule = { minMs: 300, quietMs: 400, boundMs: 1_000 };
  const forever = await drain(['c'], probes(scriptedProbe(target, 50, Infinity, 9)), target, rule, never);
  expect(forever.drain).toMatchObject({ ended: 'bound', ...rule });
  expect(forever.drain.ms).toBeGreaterThanOrEqual(rule.boundMs);
  const end = { quietMs: rule.quietMs, endedAtMs: forever.endedAtMs };
  expect(drainedState('wrong', forever.reports[0]!, end)).toBe('catching-up');
  expect(appliedInLastSecond(forever.reports[0]!, forever.endedAtMs)).toBeGreaterThan(0);
  // Applied for 200 ms, then nothing, wrong: it ends once quiet for 400 ms past the minimum, before the bound.
  const stuck = await drain(['c'], probes(scriptedProbe(target, 50, 200, 9)), target, rule, never);
  expect(stuck.drain.ended).toBe('quiet');
  expect(stuck.drain.ms).toBeLessThan(rule.boundMs);
  expect(drainedState('wrong', stuck.reports[0]!, { ...end, endedAtMs: stuck.endedAtMs })).toBe('wrong');
});
