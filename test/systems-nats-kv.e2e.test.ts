/**
 * NATS JetStream KV over a real nats-server: both idioms follow a healthy bucket, and both stay
 * correct through a stall. The watcher is an ordered push consumer with flow control: the server
 * stops sending to a reader that does not answer, and the stream keeps every last value to
 * catch up from at the thaw.
 */
import { systemNamed, type KnobValues, type RunningServer } from '@state-divergence/systems';
import { describeIfInstalled, describeOutcome, healthyRun, serverFor, stallRun } from './helpers/system-run.js';

const system = systemNamed('nats-kv');

describeIfInstalled(system)('nats-kv over a real nats-server with JetStream', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system));
  });
  afterAll(() => server?.stop());

  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300)).toEqual({ naive: [], careful: [] });
  });

  test('frozen 5 s at 2,000/s: both idioms end correct, and neither was cut off', async () => {
    const outcome = await stallRun(system, server, knobs, {
      workload: { keys: 2000, valueBytes: 64, deleteEvery: 10, seed: 3 },
      ratePerSec: 2_000,
      stallMs: 5_000,
      after: 100,
      settleMs: 5_000,
    });
    console.log(describeOutcome(system.name, outcome));
    expect(outcome.stall.issued).toBeGreaterThan(8_000);
    expect(outcome.wrong).toEqual({ naive: 0, careful: 0 });
    for (const report of Object.values(outcome.reports)) {
      expect(report.signals.filter((s) => s.kind === 'disconnect')).toEqual([]);
    }
    expect(outcome.counters.after['slow_consumers']).toBe(outcome.counters.before['slow_consumers']);
  });
});
