/**
 * Our publisher and consumer across a broker that restarts without a log (resync mode): the
 * broker is SIGKILLed mid-publishing and `brokerLost` sent to both, as the nemesis does; a new
 * broker process (a new epoch, offsets from 1, an empty table) comes up on the same port. Real
 * processes, real QUIC.
 */
import type { ConsumerReport, PublisherReport } from '@state-divergence/protocol';
import { REPLY_MS, restartMidPublishing, startCluster, type ClientCluster } from './fixtures/client-cluster.js';

let cluster: ClientCluster | undefined;
afterAll(async () => cluster?.stop());

test('the publisher waits out the outage and accounts for every change; the consumer snapshots the new broker, which replaces its copy', async () => {
  cluster = await startCluster({ mode: 'resync', keys: 2_000 });
  const consumer = await cluster.startConsumer('consumer-1');
  const publisher = await cluster.startPublisher({ rate: 400, payload: 16 });
  const { published, head } = await restartMidPublishing(cluster, consumer, publisher);

  const pub: PublisherReport = await publisher.gather(REPLY_MS);
  const copy: ConsumerReport = await consumer.gather(REPLY_MS);
  const digest = await consumer.digest(REPLY_MS);

  // Publisher: one reconnection, and every change it sent is accounted for exactly once: committed and
  // then lost with the dead broker's memory, discarded (in flight, never acknowledged), or held by the new broker.
  expect(pub).toMatchObject({ published, reconnects: 1 });
  expect(pub.outageMs).toBeGreaterThan(0);
  // `published` counts made changes (a discarded one was never made), so the new broker holds them all but those lost
  // with the old one.
  expect(head).toBe(published - pub.acknowledgedLost);
  // The authority holds what was acknowledged: the last change sent was, before `done`; every version drawn, discarded
  // ones included, is in the history.
  expect(Math.max(...pub.authority.versions)).toBe(published + pub.discarded.length);
  expect(pub.history.keys).toHaveLength(published + pub.discarded.length);

  // Consumer: two subscriptions in two epochs; the second a snapshot of the new broker, which replaced the copy.
  const [first, second] = copy.subscriptions!;
  expect(copy.subscriptions).toHaveLength(2);
  expect(first).toMatchObject({ outcome: 'snapshot', from: null });
  expect(first!.lastOffset).toBeGreaterThanOrEqual(250);
  // What reached it from the dead broker was drawn before the crash: acknowledged (then lost with that
  // broker's memory), or in flight and discarded (an ACK on its way when brokerLost arrived is ignored).
  expect(pub.acknowledgedLost + pub.discarded.length).toBeGreaterThanOrEqual(first!.lastOffset!);
  expect(second).toMatchObject({ outcome: 'snapshot', from: null, lastOffset: null });
  expect(second!.epoch).not.toBe(first!.epoch);
  expect(digest.match).toBe(true); // its copy is exactly the new broker's table: nothing the old one knew was kept
  expect(copy.removedBySnapshot!.length).toBeGreaterThan(0);
  for (const [, version] of copy.removedBySnapshot!) expect(version).toBeLessThanOrEqual(first!.lastVersion!);
  // Its offsets are the new epoch's.
  expect(copy).toMatchObject({
    lastOffset: head,
    coveredAfter: 0,
    skippedRanges: [],
    reconnects: 1,
    restoredFrom: null,
  });
});
