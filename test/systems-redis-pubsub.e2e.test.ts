/**
 * Redis pub/sub over a real redis-server: both idioms follow healthy keys; then the fault that
 * decides this system, a subscriber frozen until the server cuts it off for its output buffer
 * (client-output-buffer-limit pubsub 64kb 16kb 1, and 4 KiB values so the kernel's buffers fill
 * within a second). ioredis reconnects and resubscribes by itself; what was published meanwhile
 * is gone: the naive subscriber stays wrong, the careful one lists again and is correct.
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

const system = systemNamed('redis-pubsub');

describeIfInstalled(system)('redis-pubsub over a real redis-server', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system, {
      'client-output-buffer-limit-pubsub': '64kb 16kb 1',
    }));
  });
  afterAll(() => server?.stop());

  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300)).toEqual({ naive: [], careful: [] });
  });

  test('2,000/s of 4 KiB, pubsub 64kb 16kb 1: cut off; naive wrong, careful right', async () => {
    const outcome = await stallRun(system, server, knobs, {
      workload: { keys: 2000, valueBytes: 4096, deleteEvery: 10, seed: 5 },
      ratePerSec: 2_000,
      stallMs: 3_000,
      after: 100,
      settleMs: 3_000,
    });
    console.log(describeOutcome(system.name, outcome));
    // Redis 7.0 has no client_output_buffer_limit_disconnections counter: the server's evidence
    // is that, before the thaw, both frozen subscribers' connections are gone and with them the
    // channel's last subscriber.
    const { before, after } = outcome.counters;
    expect(after['connected_clients']).toBe(before['connected_clients']! - 2);
    expect([before['pubsub_channels'], after['pubsub_channels']]).toEqual([1, 0]);
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
