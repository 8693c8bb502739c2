/**
 * Our clients under --mode durable, as real processes over real QUIC against a durable broker:
 * a consumer restarted from its checkpoint is sent only the events after it (and falls back to a
 * snapshot when retention has discarded them: tooOld); the publisher carries on across the broker's
 * SIGKILL and restart, and its authority ends equal to what the broker holds.
 */
import { encodeSyncEnd, eventFrameBytes, StateDigest, SyncKind, type ConsumerReport } from '@state-divergence/protocol';
import { loadCheckpoint } from '@state-divergence/consumer/internal';
import type { ChildHandle } from '@state-divergence/orchestrator';
import { REPLY_MS, restartMidPublishing, startCluster, until, type ClientCluster } from './fixtures/client-cluster.js';
import { RawPublisher } from './fixtures/raw-publisher.js';

const clusters: ClientCluster[] = [];
const clients: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(clusters.map((c) => c.stop()));
});

/** Waits until `consumer` is current to `offset` and its checkpoint on disk says so too. */
async function checkpointedAt(
  cluster: ClientCluster,
  consumer: ChildHandle<'consumer'>,
  offset: number,
): Promise<void> {
  await until(
    `${consumer.name} applying up to ${offset}`,
    async () => (await consumer.status(REPLY_MS)).lastOffset === offset,
  );
  await until(`${consumer.name}'s checkpoint at ${offset}`, async () => {
    const found = await loadCheckpoint(cluster.checkpointDir(consumer.name));
    return found !== null && typeof found !== 'string' && found.offset === offset;
  });
}

describe('a consumer restarted from its checkpoint', () => {
  const KEYS = 500;
  const PAYLOAD = 8;
  const RETENTION = 400;
  const frame = eventFrameBytes(PAYLOAD);
  let cluster: ClientCluster;
  let publisher: RawPublisher;
  let epoch: number;

  beforeAll(async () => {
    cluster = await startCluster({ mode: 'durable', keys: KEYS, retention: RETENTION });
    clusters.push(cluster);
    publisher = await RawPublisher.connect(cluster.broker);
    clients.push(publisher);
    epoch = publisher.welcome.epoch;
  });

  test('asks for the events after its checkpoint and is sent exactly those: far less than a snapshot', async () => {
    const first = await cluster.startConsumer('consumer-1', true);
    await publisher.publish(1_000, KEYS, 200, PAYLOAD); // key = version mod 500: every key live, written twice
    await checkpointedAt(cluster, first, 1_000);
    await cluster.crashConsumer(first);
    await publisher.publish(40, KEYS, 40, PAYLOAD);
    const restarted = await cluster.startConsumer('consumer-1', true);
    await until(
      'the restarted consumer reaching 1,040',
      async () => (await restarted.status(REPLY_MS)).lastOffset === 1_040,
    );
    const report: ConsumerReport = await restarted.gather(REPLY_MS);
    expect(report.restoredFrom).toEqual({ offset: 1_000, epoch, keys: KEYS });
    expect(report.subscriptions).toEqual([
      expect.objectContaining({
        epoch,
        head: 1_040,
        from: 1_000,
        outcome: 'replayed',
        catchUpBytes: 40 * frame,
        lastOffset: null,
      }),
    ]);
    expect(report.applied).toBe(40);
    const fullSnapshot = KEYS * frame + encodeSyncEnd(SyncKind.snapshot, 0).length;
    expect(report.subscriptions![0]!.catchUpBytes).toBeLessThan(fullSnapshot / 10);
    expect(report).toMatchObject({ lastOffset: 1_040, coveredAfter: 0, removedBySnapshot: [], skippedRanges: [] });
    expect((await restarted.digest(REPLY_MS)).match).toBe(true);
    await checkpointedAt(cluster, restarted, 1_040);
    await cluster.crashConsumer(restarted);
  });

  test('whose events retention has discarded is refused tooOld and takes a snapshot instead', async () => {
    // head 1,540: the log keeps 1,141 on, and the consumer needs 1,041
    await publisher.publish(500, KEYS, 250, PAYLOAD);
    await publisher.waitForAck(1_540);
    const restarted = await cluster.startConsumer('consumer-1', true);
    await until(
      'the restarted consumer reaching 1,540',
      async () => (await restarted.status(REPLY_MS)).lastOffset === 1_540,
    );
    const report: ConsumerReport = await restarted.gather(REPLY_MS);
    expect(report.restoredFrom).toEqual({ offset: 1_040, epoch, keys: KEYS });
    expect(report.subscriptions).toEqual([
      expect.objectContaining({ epoch, head: 0, from: 1_040, outcome: 'tooOld', catchUpBytes: 0 }),
      expect.objectContaining({
        epoch,
        head: 1_540,
        from: null,
        outcome: 'snapshot',
        catchUpBytes: KEYS * frame + encodeSyncEnd(SyncKind.snapshot, 0).length,
      }),
    ]);
    expect(report.syncs).toEqual([expect.objectContaining({ kind: 'snapshot', keys: KEYS, offset: 1_540 })]);
    expect((await restarted.digest(REPLY_MS)).match).toBe(true);
  });
});

test("the publisher carries on across the broker's SIGKILL and restart: its authority is what the broker holds, nothing acknowledged lost; the consumer resumes by offset in the same epoch", async () => {
  const cluster = await startCluster({ mode: 'durable', keys: 2_000 });
  clusters.push(cluster);
  const consumer = await cluster.startConsumer('consumer-1', true);
  const publisher = await cluster.startPublisher({ rate: 400, payload: 16, deleteRatio: 0.05 });
  const { published, head } = await restartMidPublishing(cluster, consumer, publisher);

  const [pub, copy, broker] = await Promise.all([
    publisher.gather(REPLY_MS),
    consumer.gather(REPLY_MS),
    cluster.broker.process.gather(REPLY_MS),
  ]);
  expect(pub).toMatchObject({ published, reconnects: 1, acknowledgedLost: 0 });
  expect(pub.outageMs).toBeGreaterThan(0);
  // Offsets continue across the restart: every change made is held by the broker (`published` counts made
  // changes; a discarded one, sent but never acknowledged, was never made).
  expect(head).toBe(published);
  const authority = new StateDigest();
  pub.authority.versions.forEach(
    (version, key) => version > 0 && pub.authority.deleted[key] === 0 && authority.add(key, version),
  );
  expect(authority.toString()).toBe(broker.digest);
  expect(broker.epoch).toBe(copy.subscriptions![0]!.epoch);

  const [first, second] = copy.subscriptions!;
  expect(copy.subscriptions).toHaveLength(2);
  expect(first).toMatchObject({ outcome: 'snapshot', from: null });
  expect(second).toMatchObject({ epoch: first!.epoch, outcome: 'replayed', from: first!.lastOffset, lastOffset: null });
  expect(second!.catchUpBytes).toBe((second!.head - second!.from!) * eventFrameBytes(16));
  expect(copy).toMatchObject({
    lastOffset: head,
    coveredAfter: 0,
    skippedRanges: [],
    removedBySnapshot: [],
    restoredFrom: null,
    reconnects: 1,
  });
  expect((await consumer.digest(REPLY_MS)).match).toBe(true);
});
