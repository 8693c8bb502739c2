/**
 * Schedules `--nemesis random` drew that a run got wrong (scripts/nemesis-seeds.mjs, seeds 1-50 at
 * `--mode all --duration 1`), each as the flags its seed printed, so the case stays tested whatever
 * the draw becomes.
 */
import { consumerOf, runDemo } from './helpers/run-demo.js';

describe('a crash of a consumer whose restart is still starting (seed 13)', () => {
  // Seed 13's own schedule: consumer-1 crashed again 0.33 s after its restart began. Its successor was
  // not ready yet, so the second SIGKILL hit the dead predecessor; the successor lived on and the
  // planned restart at 3 s was refused (`a subscriber named consumer-1 is already connected`): exit 1.
  test('seed 13: the run completes, every key explained', async () => {
    const { document, survivors } = await runDemo([
      '--mode',
      'lossy',
      '--duration',
      '1',
      '--crash',
      'consumer-1@1.59-1.87',
      '--crash',
      'consumer-1@2.2-3',
      '--partition',
      'publisher@2.83-3',
    ]);
    expect(document.runs[0]).toMatchObject({ valid: expect.stringMatching(/^(valid|invalid)$/), unexplained: 0 });
    expect(survivors).toEqual([]);
  });

  // The same 10 ms after the restart began: no process boots, connects and subscribes that fast, so the
  // successor is certainly still starting when the second crash is due, on a quiet machine as on a busy one.
  test('10 ms after its restart: the second crash waits for the successor and kills it, not the dead process', async () => {
    const { document } = await runDemo([
      '--mode',
      'lossy',
      '--duration',
      '1',
      '--crash',
      'consumer-2@1-1.5',
      '--crash',
      'consumer-2@1.51-2.5',
    ]);
    const [run] = document.runs;
    const events = run!.events.filter(
      (e) => (e.type === 'crash' || e.type === 'restart') && e.consumer === 'consumer-2',
    ) as Array<{ type: string; pid: number }>;
    expect(events.map((e) => e.type)).toEqual(['crash', 'restart', 'crash', 'restart']);
    const [firstCrash, firstRestart, secondCrash, secondRestart] = events;
    expect(secondCrash!.pid).toBe(firstRestart!.pid); // the successor was the one killed
    expect(new Set([firstCrash!.pid, firstRestart!.pid, secondRestart!.pid]).size).toBe(3);
    expect(consumerOf(run!, 'consumer-2')).toMatchObject({ endedEarly: null, unexplained: 0 });
  });
});
