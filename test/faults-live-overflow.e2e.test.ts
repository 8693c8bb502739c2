/**
 * What a full queue does under lossy's other overflow policy, against a real run over QUIC.
 * (Diverged and behind, sampled live while a consumer is frozen, are asserted in
 * modes.e2e.test.ts, on the run of every mode it already makes.)
 */
import { brokerOf, consumerOf as consumer, runDemo, type ModeRun } from './helpers/run-demo.js';

/**
 * A lossy run with half-second phases: a fault's window is in seconds since publishing began,
 * so the phase length only sets the quiet phases around it (recovering, quiesced).
 */
const lossy = async (args: string[]): Promise<ModeRun> =>
  (await runDemo(['--mode', 'lossy', '--duration', '0.5', ...args])).document.runs[0]!;

describe('what a full queue does (lossy)', () => {
  // drop-oldest's hot keys repairing, and measured against expected, are in experiments.e2e.test.ts (the hotness
  // experiment).
  test('disconnect: the broker ends the stream, the consumer learns it, reconnects at latest, and still ends wrong with every key explained', async () => {
    const run = await lossy(['--overflow', 'disconnect', '--queue-capacity', '64', '--stall', 'consumer-3@0.5-2.5']);
    const c = consumer(run, 'consumer-3');
    expect(brokerOf(run).subscribers['consumer-3']!.disconnects).toBeGreaterThanOrEqual(1);
    expect(c.recovery!.reconnects).toBeGreaterThanOrEqual(1);
    expect(c).toMatchObject({ endedEarly: null, unexplained: 0 });
    expect(c.wrongCount).toBeGreaterThan(0);
  });
});
