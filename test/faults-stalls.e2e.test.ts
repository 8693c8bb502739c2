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
const lossy = async (args: string[]): Promise<ModeRun> =>
  (await runDemo(['--mode', 'lossy', '--duration', '0.5', ...args])).document.runs[0]!;

/**
 * The broker's runs of drops for `name`, from its marks (on its clock, the wall clock the run's
 * `origin` converts to): when each started and ended (null: still dropping when the run ended), and
 * its offsets; with when the run froze and thawed it. How many events a stall drops depends on how
 * fast a busy machine published; which runs there were, and when, does not.
 */
function dropRuns(run: ModeRun, name: string) {
  const subscriber = brokerOf(run).subscribers[name]!;
  const wall = (type: 'freeze' | 'thaw') =>
    run.origin.wallMs + run.events.find((e) => e.type === type && e.consumer === name)!.at - run.origin.runMs;
  const runs = subscriber.marks.flatMap((m, i) => {
    if (m.what !== 'drops started') return [];
    const ended = subscriber.marks.slice(i + 1).find((e) => e.what === 'drops ended' || e.what === 'drops started');
    return [
      {
        startedAt: m.at,
        endedAt: ended?.what === 'drops ended' ? ended.at : null,
        range: subscriber.droppedRanges.find(([from]) => from === m.offset),
      },
    ];
  });
  return { runs, frozeAt: wall('freeze'), thawedAt: wall('thaw'), dropped: subscriber.dropped };
}

describe("churn heals what silence cannot (the seed's twelve keys)", () => {
  test("12 keys at 2000/s: with publishing going on two phases after the stall the stalled consumer ends with at most 1 wrong key; with the seed's rule at least 10 of 12", async () => {
    // One run, two 1 s stalls at 2000/s (2000 changes at rate: the 512-event queue overflows): consumer-3's
    // [0.5, 1.5) is followed by two phases of publishing (churn), consumer-2's [1.5, 2.5) ends with it (the
    // seed's rule: the thaw waits for the last change, so nothing is published after it).
    const run = await lossy([
      '--keys',
      '12',
      '--rate',
      '2000',
      '--stall',
      'consumer-3@0.5-1.5',
      '--stall',
      'consumer-2@1.5-2.5',
    ]);
    expect(run.unexplained).toBe(0);
    // Churn: consumer-3 lost events to its stall (thousands at rate; on a busy machine a slow broker may
    // overflow its queue only as it wakes, still for the stall), and ends with at most one key wrong.
    const churn = dropRuns(run, 'consumer-3');
    expect(churn.dropped).toBeGreaterThan(0);
    expect(churn.runs.filter((r) => r.endedAt === null || r.endedAt >= churn.frozeAt).length).toBeGreaterThan(0);
    expect(churn.runs.at(-1)!.range![1]).toBeLessThan(brokerOf(run).head); // the broker took changes after its drops
    expect(consumer(run, 'consumer-3').wrongCount).toBeLessThanOrEqual(1);
    // The seed's rule: consumer-2 lost every change from its queue's overflow on, the last one included:
    // one run of drops begun before its thaw and never ended, up to the head.
    const silence = dropRuns(run, 'consumer-2');
    expect(silence.dropped).toBeGreaterThan(0);
    const last = silence.runs.at(-1)!;
    expect(last.startedAt).toBeLessThan(silence.thawedAt);
    expect(last.endedAt).toBeNull();
    expect(last.range![1]).toBe(brokerOf(run).head);
    expect(consumer(run, 'consumer-2').wrongCount).toBeGreaterThanOrEqual(10);
  });
});

describe('two stalled consumers', () => {
  test('stalled at different times they are wrong about different keys; stalled together, about the same ones', async () => {
    // One run holds both pairs (a consumer's damage depends on its own window and on when publishing
    // ends, here 3 s for both as when each pair had a run of its own): consumer-2 and consumer-4
    // stalled one after the other, consumer-3 and consumer-5 together; consumer-1 is never stalled.
    // A 64-event queue: with the ~130 events its transport absorbs, a 1 s stall at 400/s overflows it
    // even if a busy machine publishes at half the rate (with 128, at two thirds).
    const run = await lossy([
      '--consumers',
      '5',
      '--queue-capacity',
      '64',
      '--stall',
      'consumer-2@1-2',
      '--stall',
      'consumer-4@2-3',
      '--stall',
      'consumer-3@1-3',
      '--stall',
      'consumer-5@1-3',
    ]);
    for (const name of ['consumer-2', 'consumer-3', 'consumer-4', 'consumer-5'])
      expect(consumer(run, name).wrongCount).toBeGreaterThan(0);
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
