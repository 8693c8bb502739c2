/**
 * Core NATS over a real nats-server: both idioms follow healthy subjects; then the fault that
 * decides this system, a subscriber frozen until the server cuts it off as a slow consumer (a
 * small max_pending and write deadline, and 4 KiB values so the kernel's buffers fill within a
 * second). What was published while it was cut off is gone: the naive subscriber resumes after
 * the reconnect and stays wrong; the careful one asks the writer for a snapshot and is correct.
 */
import { systemNamed, type KnobValues, type RunningServer } from '@state-divergence/systems';
import {
  describeIfInstalled,
  describeOutcome,
  healthyRun,
  serverFor,
  signalCounts,
  stallRun,
} from './helpers/system-run.js';

const system = systemNamed('nats');

describeIfInstalled(system)('nats over a real nats-server', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system, {
      'write-deadline': '500ms',
      'max-pending': '1048576',
    }));
  });
  afterAll(() => server?.stop());

  // Core NATS keeps nothing: a subscriber knows only what is published after it subscribed,
  // so here the consumers start before the first change.
  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300, 0)).toEqual({ naive: [], careful: [] });
  });

  test('2,000/s of 4 KiB, max_pending 1 MiB: cut off; naive wrong, careful right', async () => {
    const outcome = await stallRun(system, server, knobs, {
      workload: { keys: 2000, valueBytes: 4096, deleteEvery: 10, seed: 4 },
      before: 0,
      ratePerSec: 2_000,
      stallMs: 3_000,
      after: 100,
      settleMs: 3_000,
    });
    console.log(describeOutcome(system.name, outcome));
    expect(outcome.counters.after['slow_consumers']! - outcome.counters.before['slow_consumers']!).toBe(2);
    expect(outcome.wrong.naive).toBeGreaterThan(100);
    expect(signalCounts(outcome.reports.naive)).toMatchObject({ disconnect: 1, reconnect: 1 });
    expect(outcome.wrong.careful).toBe(0);
    expect(signalCounts(outcome.reports.careful)).toMatchObject({
      disconnect: 1,
      reconnect: 1,
      relist: 1,
    });
  });
});
