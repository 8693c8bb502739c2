/**
 * etcd over a real etcd server: both idioms follow a healthy prefix; then the fault that decides
 * this system, a watcher frozen while the store is compacted past its next revision late in the
 * stall. At the thaw etcd cancels the watch: the naive informer gets a cancel and nothing after
 * it, so it stays wrong; the careful one relists once and watches again.
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

const system = systemNamed('etcd');

describeIfInstalled(system)('etcd over a real etcd server', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system));
  });
  afterAll(() => server?.stop());

  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300)).toEqual({ naive: [], careful: [] });
  });

  test('compacted late in a 4 s stall: naive wrong after a cancel, careful relists', async () => {
    let compactedAt = 0;
    const outcome = await stallRun(system, server, knobs, {
      workload: { keys: 2000, valueBytes: 256, deleteEvery: 10, seed: 2 },
      ratePerSec: 300,
      stallMs: 4_000,
      at: 3_500,
      during: async () => {
        compactedAt = await system.actions!.compact!(server.endpoint);
      },
      after: 100,
      settleMs: 2_000,
    });
    console.log(`${describeOutcome(system.name, outcome)}; compacted at revision ${compactedAt}`);
    expect(compactedAt).toBeGreaterThan(1_000);
    expect(outcome.wrong.naive).toBeGreaterThan(0);
    expect(signalCounts(outcome.reports.naive).cancel).toBe(1);
    expect(outcome.reports.naive.signals.find((s) => s.kind === 'cancel')?.detail).toMatch(/^Watcher canceled/);
    expect(outcome.wrong.careful).toBe(0);
    expect(signalCounts(outcome.reports.careful)).toMatchObject({ cancel: 1, relist: 1 });
  });
});
