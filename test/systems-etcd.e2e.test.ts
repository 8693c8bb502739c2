/**
 * etcd over a real etcd server: both idioms follow a healthy prefix. The fault that decides this
 * system, a compaction inside the stall, is tested through the orchestrator
 * (test/system-cutoff.e2e.test.ts, `--compact-at`).
 */
import { systemNamed, type KnobValues, type RunningServer } from '@state-divergence/systems';
import { describeIfInstalled, healthyRun, serverFor } from './helpers/system-run.js';

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
});
