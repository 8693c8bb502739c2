/**
 * Faults on a schedule, against real runs over QUIC: churn after the gap, and two
 * consumers stalled at different times or together. Every wrong key must still be
 * explained (unexplained 0), whatever the fault.
 */
import { brokerOf, consumerOf as consumer, runDemo, type ModeRun } from './helpers/run-demo.js';

/**
 * A lossy run with half-second phases: a fault's window is in seconds since publishing began,
 * so the phase length only sets the quiet phases around it (recovering, quiesced).
 */
const lossy = async (args: string[]): Promise<ModeRun> => (await runDemo(['--mode', 'lossy', '--duration', '0.5', ...args])).document.runs[0]!;

/**
 * The broker's last run of drops for `name` begun before its thaw (the broker's marks, on its clock,
 * the wall clock the run's `origin` converts to): whether it ended before the thaw, and its offsets.
 * How many events a stall drops depends on how fast a busy machine published; that a frozen consumer
 * is delivered nothing from its first drop until it is thawed does not.
 */
function dropsToThaw(run: ModeRun, name: string) {
  const subscriber = brokerOf(run).subscribers[name]!;
  const thaw = run.events.find((e) => e.type === 'thaw' && e.consumer === name)!;
  const thawedAt = run.origin.wallMs + thaw.at - run.origin.runMs;
  const started = subscriber.marks.filter((m) => m.what === 'drops started' && m.at < thawedAt).at(-1);
  const endedBeforeThaw = subscriber.marks.filter((m) => m.what === 'drops ended' && started !== undefined && m.at >= started.at && m.at < thawedAt);
  const range = subscriber.droppedRanges.find(([from]) => from === started?.offset);
  return { startedBeforeThaw: started !== undefined, endedBeforeThaw, range, dropped: subscriber.dropped };
}

describe('churn heals what silence cannot (the seed\'s twelve keys)', () => {
  test('12 keys at 2000/s: with publishing going on two phases after the stall the stalled consumer ends with at most 1 wrong key; with the seed\'s rule at least 10 of 12', async () => {
    // The default stall at half-second phases is [0.5, 1.5): 2000 changes at rate, the 512-event queue overflows.
    const churn = await lossy(['--keys', '12', '--rate', '2000', '--publish-until', '2.5']);
    const silence = await lossy(['--keys', '12', '--rate', '2000']);
    for (const run of [churn, silence]) {
      // Both lost every event from the moment its queue was full until it woke: thousands at rate; a busy
      // machine that published less loses less, but still all of it (one run of drops, not ended before the thaw).
      const drops = dropsToThaw(run, 'consumer-3');
      expect(drops.dropped).toBeGreaterThan(0);
      expect(drops).toMatchObject({ startedBeforeThaw: true, endedBeforeThaw: [] });
      expect(drops.range).toBeDefined();
      expect(run.unexplained).toBe(0);
    }
    expect(churn.published).toBeGreaterThan(silence.published); // it did publish after the gap
    expect(consumer(churn, 'consumer-3').wrongCount).toBeLessThanOrEqual(1);
    expect(consumer(silence, 'consumer-3').wrongCount).toBeGreaterThanOrEqual(10);
  });
});

describe('two stalled consumers', () => {
  test('stalled at different times they are wrong about different keys; stalled together, about the same ones', async () => {
    // One run holds both pairs (a consumer's damage depends on its own window and on when publishing
    // ends, here 3 s for both as when each pair had a run of its own): consumer-2 and consumer-4
    // stalled one after the other, consumer-3 and consumer-5 together; consumer-1 is never stalled.
    // A 64-event queue: with the ~130 events its transport absorbs, a 1 s stall at 400/s overflows it
    // even if a busy machine publishes at half the rate (with 128, at two thirds).
    const run = await lossy(['--consumers', '5', '--queue-capacity', '64', '--stall', 'consumer-2@1-2', '--stall', 'consumer-4@2-3', '--stall', 'consumer-3@1-3', '--stall', 'consumer-5@1-3']);
    for (const name of ['consumer-2', 'consumer-3', 'consumer-4', 'consumer-5']) expect(consumer(run, name).wrongCount).toBeGreaterThan(0);
    expect(run.unexplained).toBe(0);
    const pair = (a: string, b: string) => run.faultedOverlap.find((o) => o.a === a && o.b === b)!;
    const apart = pair('consumer-2', 'consumer-4');
    const together = pair('consumer-3', 'consumer-5');
    expect(consumer(run, 'consumer-2').faults).toEqual([{ kind: 'stall', consumer: 'consumer-2', from: 1, to: 2 }]);
    expect(together.jaccard).toBeGreaterThan(0.8);
    expect(apart.jaccard!).toBeLessThan(together.jaccard! - 0.5);
    expect(apart.onlyA + apart.onlyB).toBeGreaterThan(apart.both);
  });
});
