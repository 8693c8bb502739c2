/**
 * Faults on a schedule, against real runs over QUIC: churn after the gap, stalls
 * at different times, a slowed consumer and a crashed one. Every wrong key must
 * still be explained (unexplained 0), whatever the fault.
 */
import { brokerOf, runDemo, type ConsumerResult, type ModeRun } from './helpers/run-demo.js';

const consumer = (run: ModeRun, name: string): ConsumerResult => run.consumers.find((c) => c.name === name)!;
const lossy = async (args: string[]) => (await runDemo(['--mode', 'lossy', '--duration', '1', ...args])).document.runs[0]!;

describe('churn heals what silence cannot (the seed\'s twelve keys)', () => {
  test('12 keys at 2000/s: with publishing going on two phases after the stall the stalled consumer ends with at most 1 wrong key; with the seed\'s rule at least 10 of 12', async () => {
    const churn = await lossy(['--keys', '12', '--rate', '2000', '--publish-until', '5']);
    const silence = await lossy(['--keys', '12', '--rate', '2000']);
    for (const run of [churn, silence]) {
      expect(brokerOf(run).subscribers['consumer-3']!.dropped).toBeGreaterThan(1000); // both lost thousands of events
      expect(run.unexplained).toBe(0);
    }
    expect(churn.published).toBeGreaterThan(silence.published); // it did publish after the gap
    expect(consumer(churn, 'consumer-3').wrongCount).toBeLessThanOrEqual(1);
    expect(consumer(silence, 'consumer-3').wrongCount).toBeGreaterThanOrEqual(10);
  });
});

describe('two stalled consumers', () => {
  test('stalled at different times they are wrong about different keys; stalled together, about the same ones', async () => {
    const base = ['--consumers', '5', '--queue-capacity', '128'];
    const staggered = await lossy([...base, '--stall', 'consumer-2@1-2', '--stall', 'consumer-4@2-3']);
    const same = await lossy([...base, '--stall', 'consumer-2@1-3', '--stall', 'consumer-4@1-3']);
    for (const run of [staggered, same]) {
      expect(consumer(run, 'consumer-2').wrongCount).toBeGreaterThan(0);
      expect(consumer(run, 'consumer-4').wrongCount).toBeGreaterThan(0);
      expect(run.unexplained).toBe(0);
    }
    const [apart] = staggered.faultedOverlap;
    const [together] = same.faultedOverlap;
    expect(consumer(staggered, 'consumer-2').faults).toEqual([{ kind: 'stall', consumer: 'consumer-2', from: 1, to: 2 }]);
    expect(together!.jaccard).toBeGreaterThan(0.8);
    expect(apart!.jaccard!).toBeLessThan(together!.jaccard! - 0.5);
    expect(apart!.onlyA + apart!.onlyB).toBeGreaterThan(apart!.both);
  });
});

describe('a slowed consumer (stopped 90 % of every 100 ms, never frozen for long)', () => {
  const slow = ['--slow', 'consumer-3@1-3:90', '--rate', '2000', '--queue-capacity', '64'];

  test('falls behind and loses events under lossy, and ends wrong with every key explained', async () => {
    const run = await lossy(slow);
    expect(brokerOf(run).subscribers['consumer-3']!.dropped).toBeGreaterThan(0);
    expect(consumer(run, 'consumer-3')).toMatchObject({ unexplained: 0, endedEarly: null });
    expect(consumer(run, 'consumer-3').wrongCount).toBeGreaterThan(0);
    expect(consumer(run, 'consumer-3').faults).toEqual([{ kind: 'slow', consumer: 'consumer-3', from: 1, to: 3, percent: 90 }]);
  });

  test('lags and converges under resync', async () => {
    const { document } = await runDemo(['--mode', 'resync', '--duration', '1', ...slow]);
    const run = document.runs[0]!;
    expect(brokerOf(run).subscribers['consumer-3']!.lags).toBeGreaterThan(0);
    for (const c of run.consumers) expect(c).toMatchObject({ wrongCount: 0, unexplained: 0, digestMatch: true, endedEarly: null });
  });
});

describe('a crashed consumer, restarted', () => {
  test('under lossy the fresh process subscribes at latest and ends wrong, every key explained; under resync it takes a snapshot and converges', async () => {
    const { document } = await runDemo(['--mode', 'all', '--duration', '1', '--crash', 'consumer-3@1-2']);
    const [lossyRun, , resyncRun] = document.runs;
    const crashed = consumer(lossyRun!, 'consumer-3');
    expect(crashed).toMatchObject({ endedEarly: null, unexplained: 0, faults: [{ kind: 'crash', consumer: 'consumer-3', from: 1, to: 2 }] });
    expect(crashed.wrongCount).toBeGreaterThan(0);
    expect(crashed.applied).toBeLessThan(lossyRun!.published); // a fresh copy: it applied only what came after its restart
    expect(lossyRun!.events.filter((e) => e.type === 'crash' || e.type === 'restart').map((e) => e.type)).toEqual(['crash', 'restart']);
    expect(consumer(resyncRun!, 'consumer-3')).toMatchObject({ wrongCount: 0, digestMatch: true, endedEarly: null });
    expect(consumer(resyncRun!, 'consumer-3').recovery!.syncs[0]).toMatchObject({ kind: 'snapshot' });
  });
});

describe('diverged and behind, live', () => {
  test('a frozen consumer\'s diverged climbs above 0 while it is still frozen (lossy); a healthy consumer\'s diverged is 0 in every mode', async () => {
    const { document } = await runDemo(['--mode', 'all', '--duration', '1', '--queue-capacity', '64']);
    for (const run of document.runs) {
      const { t, diverged, behind } = run.wrongOverTime;
      expect(t.length).toBeGreaterThanOrEqual(4 * 5 - 2); // at least four samples per phase (a slow round may be skipped)
      const values = (series: Array<number | null> | undefined) => (series ?? []).map((v) => v ?? 0);
      for (const name of ['consumer-1', 'consumer-2']) expect(Math.max(...values(diverged[name]))).toBe(0);
      for (const name of Object.keys(diverged)) expect([diverged[name]!.length, behind[name]!.length]).toEqual([t.length, t.length]);
      const stalledDiverged = values(diverged['consumer-3']);
      const inStall = t.map((s, i) => (s > 1.5 && s < 2.9 ? stalledDiverged[i]! : -1)).filter((v) => v >= 0);
      expect(inStall.length).toBeGreaterThan(0);
      if (run.mode === 'lossy') expect(Math.max(...inStall)).toBeGreaterThan(0); // climbing while SIGSTOPped
      else expect(Math.max(...stalledDiverged)).toBe(0); // lossless never drops; resync discards, never loses
      // Frozen, its latest writes wait for it: behind, not diverged, in every mode.
      expect(Math.max(...t.map((s, i) => (s > 1.2 && s < 2.9 ? values(behind['consumer-3'])[i]! : 0)))).toBeGreaterThan(0);
    }
  });
});

describe('what a full queue does (lossy)', () => {
  // drop-oldest's hot keys repairing, and measured against expected, are in experiments.e2e.test.ts (the hotness experiment).
  test('disconnect: the broker ends the stream, the consumer learns it, reconnects at latest, and still ends wrong with every key explained', async () => {
    const { document } = await runDemo(['--mode', 'lossy', '--duration', '1', '--overflow', 'disconnect', '--queue-capacity', '64']);
    const run = document.runs[0]!;
    const c = consumer(run, 'consumer-3');
    expect(brokerOf(run).subscribers['consumer-3']!.disconnects).toBeGreaterThanOrEqual(1);
    expect(c.recovery!.reconnects).toBeGreaterThanOrEqual(1);
    expect(c).toMatchObject({ endedEarly: null, unexplained: 0 });
    expect(c.wrongCount).toBeGreaterThan(0);
  });
});
