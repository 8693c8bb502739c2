/**
 * Diverged and behind, sampled live while a consumer is frozen, and what a full
 * queue does under lossy's other overflow policy, against real runs over QUIC.
 */
import { brokerOf, consumerOf as consumer, runDemo, type ModeRun } from './helpers/run-demo.js';

/**
 * A lossy run with half-second phases: a fault's window is in seconds since publishing began,
 * so the phase length only sets the quiet phases around it (recovering, quiesced).
 */
const lossy = async (args: string[]): Promise<ModeRun> => (await runDemo(['--mode', 'lossy', '--duration', '0.5', ...args])).document.runs[0]!;

describe('diverged and behind, live', () => {
  test('a frozen consumer\'s diverged climbs above 0 while it is still frozen (lossy); a healthy consumer\'s diverged is 0 in every mode', async () => {
    const { document } = await runDemo(['--mode', 'all', '--duration', '1', '--queue-capacity', '64']);
    for (const run of document.runs) {
      const { t, diverged, behind } = run.wrongOverTime;
      // A sample is due every quarter phase (250 ms here) and a round still in flight when the next is
      // due is skipped. A round asks five processes over IPC (tens of ms): two per phase, half the
      // rounds, would mean rounds five to ten times slower than that; it still shows every phase.
      expect(t.length).toBeGreaterThanOrEqual(2 * 5);
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
    const run = await lossy(['--overflow', 'disconnect', '--queue-capacity', '64', '--stall', 'consumer-3@0.5-2.5']);
    const c = consumer(run, 'consumer-3');
    expect(brokerOf(run).subscribers['consumer-3']!.disconnects).toBeGreaterThanOrEqual(1);
    expect(c.recovery!.reconnects).toBeGreaterThanOrEqual(1);
    expect(c).toMatchObject({ endedEarly: null, unexplained: 0 });
    expect(c.wrongCount).toBeGreaterThan(0);
  });
});
