/**
 * Redis pub/sub over a real redis-server: both idioms follow healthy keys. The fault that decides
 * this system, a frozen subscriber cut off for its output buffer, is tested through the
 * orchestrator (test/system-cutoff.e2e.test.ts, `--client-output-buffer-limit-pubsub`).
 */
import { systemNamed, type KnobValues, type RunningServer } from '@state-divergence/systems';
import { describeIfInstalled, healthyRun, serverFor } from './helpers/system-run.js';

const system = systemNamed('redis-pubsub');

describeIfInstalled(system)('redis-pubsub over a real redis-server', () => {
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
