/**
 * Whether a stream that ends is a failure is decided by the `ending` command
 * (ChildContext.ending), never by the log phase: two real consumers of one real
 * broker, one told the phase `teardown`, the other told `ending`, lose their
 * broker at once (it is stopped). Only the first reports an early end.
 */
import type { ChildHandle } from '@state-divergence/orchestrator';
import { startBroker, type RealBroker } from './fixtures/real-broker.js';

let broker: RealBroker;
const consumers: ChildHandle[] = [];
afterAll(async () => {
  await Promise.all(consumers.map((consumer) => consumer.stop()));
  await broker?.process.stop();
});

/** The reason of every `ended` the consumer sends from now on. */
function endsOf(consumer: ChildHandle): string[] {
  const reasons: string[] = [];
  consumer.on((message) => message.type === 'ended' && reasons.push(message.reason));
  return reasons;
}

test('a consumer told only the teardown phase reports its stream ending; one told ending does not', async () => {
  // A short idle timeout: a client that loses its broker unannounced gives up after max(3 s, it).
  broker = await startBroker({ mode: 'lossy', keys: 16, idleTimeoutMs: 2_000 });
  const phaseOnly = await broker.startConsumer('consumer-1');
  const ending = await broker.startConsumer('consumer-2');
  consumers.push(phaseOnly, ending);
  const [phaseOnlyEnds, endingEnds] = [endsOf(phaseOnly), endsOf(ending)];

  phaseOnly.send({ type: 'phase', phase: 'teardown' });
  ending.send({ type: 'ending' });
  // IPC is ordered: a reply to a later request means the command was taken.
  await Promise.all([phaseOnly.status(5_000), ending.status(5_000)]);

  await broker.process.stop();
  const deadline = Date.now() + 10_000;
  while (phaseOnlyEnds.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(phaseOnlyEnds).toEqual([expect.any(String)]);

  // Both lost the broker at the same moment; 1 s more is ample for the second's end to have arrived.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(endingEnds).toEqual([]);
  expect((await ending.status(5_000)).endedEarly).toBeNull();
  expect((await phaseOnly.status(5_000)).endedEarly).toBe(phaseOnlyEnds[0]);
});
