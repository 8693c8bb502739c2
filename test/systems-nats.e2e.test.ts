/**
 * Core NATS over a real nats-server: both idioms follow healthy subjects. The fault that decides
 * this system, a frozen subscriber cut off as a slow consumer, is tested through the orchestrator
 * (test/system-cutoff.e2e.test.ts, `--max-pending`, `--write-deadline`).
 */
import { systemNamed, type KnobValues, type RunningServer } from '@state-divergence/systems';
import { describeIfInstalled, healthyRun, serverFor } from './helpers/system-run.js';

const system = systemNamed('nats');

describeIfInstalled(system)('nats over a real nats-server', () => {
  let server: RunningServer;
  let knobs: KnobValues;
  beforeAll(async () => {
    ({ server, knobs } = await serverFor(system));
  });
  afterAll(() => server?.stop());

  // Core NATS keeps nothing: a subscriber knows only what is published after it subscribed,
  // so here the consumers start before the first change.
  test('both idioms end with the authority after a few hundred changes', async () => {
    expect(await healthyRun(system, server, knobs, 300, 0)).toEqual({ naive: [], careful: [] });
  });
});
