/**
 * Redis Streams over a real redis-server: both idioms follow a healthy stream. The fault that
 * decides this system (a reader frozen while MAXLEN ~1000 trims the stream past its last id; XREAD
 * resumes at the oldest entry left, with no error) is tested end to end, through the orchestrator,
 * in test/system-run.e2e.test.ts: the naive reader stays wrong and is told nothing, the careful one
 * sees the gap in the writer's seq and relists.
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
});
