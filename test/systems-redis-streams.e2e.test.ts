/**
 * Redis Streams over a real redis-server: both idioms follow a healthy stream; then the fault
 * that decides this system, a reader frozen while MAXLEN ~1000 trims the stream past its last
 * id. XREAD then resumes at the oldest entry left, with no error: the naive reader stays wrong
 * and was told nothing; the careful one sees the gap in the writer's seq and relists.
 */
import { systemNamed, type RunningServer, type KnobValues } from '@state-divergence/systems';
import {
  describeIfInstalled,
  describeOutcome,
  healthyRun,
  serverFor,
  signalCounts,
  stallRun,
} from './helpers/system-run.js';

const system = systemNamed('redis-streams');

describeIfInstalled(system)('redis-streams over a real redis-server', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system));
  });
  afterAll(() => server?.stop());

  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300)).toEqual({ naive: [], careful: [] });
  });

  test('8 s at 400/s, MAXLEN ~1000: naive wrong, told nothing; careful relists', async () => {
    const outcome = await stallRun(system, server, knobs, {
      workload: { keys: 2000, valueBytes: 64, deleteEvery: 10, seed: 1 },
      ratePerSec: 400,
      stallMs: 8_000,
      after: 100,
      settleMs: 2_000,
    });
    console.log(describeOutcome(system.name, outcome));
    expect(outcome.stall.issued).toBeGreaterThan(3_000);
    expect(outcome.wrong.naive).toBeGreaterThan(100);
    // Not a disconnect, not an error, nothing: the trim is silent to XREAD.
    expect(outcome.reports.naive.signals).toEqual([]);
    expect(outcome.wrong.careful).toBe(0);
    expect(signalCounts(outcome.reports.careful)).toEqual({ trimmed: 1, relist: 1 });
    expect(outcome.reports.careful.signals[0]?.detail).toMatch(/recorded-first-entry-id \d+-\d+/);
  });
});
