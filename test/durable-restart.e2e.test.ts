/**
 * A durable broker process with a small queue: a consumer process frozen with SIGSTOP overflows
 * its queue and is back-filled from the log (nothing dropped, the publisher acknowledged
 * throughout, every event delivered in order once it wakes); then the broker is SIGKILLed and
 * started again on the same directory and port, and keeps its epoch, its offsets and its digest
 * (where a broker without a log comes back as a new incarnation), and a directory the log refuses
 * fails the broker at start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeHello, Role, StartKind, StateDigest, type BrokerReport } from '@state-divergence/protocol';
import { sleep } from '@state-divergence/runtime';
import type { ChildHandle } from '@state-divergence/orchestrator';
import { nextEvent, RawPublisher } from './fixtures/raw-publisher.js';
import { REPLY_MS, startBroker, type RealBroker } from './fixtures/real-broker.js';

const KEYS = 200;
const dir = mkdtempSync(join(tmpdir(), 'state-divergence-log-'));
let broker: RealBroker;
let consumer: ChildHandle<'consumer'> | undefined;
/** Every client a test opened, closed at the end whatever failed (an open QUIC client keeps the worker alive). */
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  broker = await startBroker({
    mode: 'durable',
    keys: KEYS,
    queueCapacity: 64,
    durable: { dir, fsync: 'periodic', retention: null },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  consumer?.thaw();
  await consumer?.stop();
  await broker?.process.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (bounded) until the consumer's counters say it applied up to `offset`. */
async function consumerAt(offset: number): Promise<void> {
  const deadline = Date.now() + REPLY_MS;
  while ((await consumer!.status(REPLY_MS)).lastOffset < offset) {
    if (Date.now() > deadline) throw new Error(`the consumer never reached offset ${offset}`);
    await sleep(50);
  }
}

let beforeCrash: BrokerReport;

test("a frozen consumer's full queue back-fills from the log: nothing dropped, the publisher acknowledged throughout, every event in order after SIGCONT", async () => {
  consumer = await broker.startConsumer('consumer-1');
  const publisher = await RawPublisher.connect(broker);
  clients.push(publisher);
  await publisher.publish(100, KEYS);
  await consumerAt(100);
  consumer.freeze();
  // 6,000 events of 46 bytes: far more than the frozen peer's ~13.5 KB congestion window plus a 64-event queue.
  await publisher.publish(6_000, KEYS);
  // Acknowledged while the consumer is still frozen: the broker never waited for it.
  expect(await publisher.waitForAck(6_100)).toEqual({ type: 'ack', version: 6_100, headOffset: 6_100 });
  expect(consumer.frozen).toBe(true);
  const during = await broker.process.gather(REPLY_MS);
  expect(during.subscribers['consumer-1']).toMatchObject({ dropped: 0, droppedRanges: [] });
  expect(during.subscribers['consumer-1']!.backfills).toBeGreaterThanOrEqual(1);
  expect(during.subscribers['consumer-1']!.maxQueued).toBeLessThanOrEqual(64);
  consumer.thaw();
  await consumerAt(6_100);
  const report = await consumer.gather(REPLY_MS);
  expect(report.skippedRanges).toEqual([]); // it checks offsets: every one arrived, in order
  const digest = new StateDigest();
  for (const [key, version] of report.entries) digest.add(key, version);
  beforeCrash = await broker.process.gather(REPLY_MS);
  expect(digest.toString()).toBe(beforeCrash.digest);
  expect(beforeCrash.subscribers['consumer-1']).toMatchObject({ dropped: 0, delivered: 6_100 });
  expect(beforeCrash.subscribers['consumer-1']!.replayedEvents).toBeGreaterThan(0);
  expect(publisher.problems).toEqual([]);
  await publisher.close();
  await consumer.stop();
  consumer = undefined;
});

test('SIGKILLed and started again on the same directory and port, the broker keeps its epoch, continues its offsets and its digest', async () => {
  expect(beforeCrash.head).toBe(6_100);
  broker = await broker.restart();
  const after = await broker.process.gather(REPLY_MS);
  expect(after).toMatchObject({
    epoch: beforeCrash.epoch,
    head: 6_100,
    digest: beforeCrash.digest,
    recovered: { records: 6_100, tornTail: 0 },
  });
  expect(after.lastWriteOffsets).toEqual(beforeCrash.lastWriteOffsets);
  // The publisher learns what survived: WELCOME(head, same epoch), then ACK(highest version, head).
  const publisher = await RawPublisher.connect(broker);
  clients.push(publisher);
  expect(publisher.welcome).toEqual({ type: 'welcome', headOffset: 6_100, epoch: beforeCrash.epoch });
  expect(await publisher.waitForAck(0)).toEqual({ type: 'ack', version: 6_100, headOffset: 6_100 });
  // A subscriber resuming from the head before the crash gets exactly what follows, at offsets that continue.
  const client = await broker.connect();
  clients.push(client);
  await client.write(
    encodeHello({
      role: Role.subscriber,
      name: 'resumer',
      token: Buffer.from(broker.endpoint.token, 'hex'),
      start: StartKind.offset,
      startOffset: 6_100,
    }),
  );
  expect(await client.next('WELCOME')).toEqual({ type: 'welcome', headOffset: 6_100, epoch: beforeCrash.epoch });
  await publisher.publish(10, KEYS);
  expect(await publisher.waitForAck(6_110)).toEqual({ type: 'ack', version: 6_110, headOffset: 6_110 });
  for (let offset = 6_101; offset <= 6_110; offset++)
    expect(await nextEvent(client, 'EVENT')).toMatchObject({ type: 'event', offset });
  await client.close();
  await publisher.close();
});

test("a directory the log refuses (it holds something else) fails the broker at start with the log's one line", async () => {
  const foreign = mkdtempSync(join(tmpdir(), 'state-divergence-foreign-'));
  writeFileSync(join(foreign, 'notes.txt'), 'not a log');
  try {
    await expect(
      startBroker({ mode: 'durable', keys: KEYS, durable: { dir: foreign, fsync: 'periodic', retention: null } }),
    ).rejects.toThrow(
      new RegExp(
        `^broker \\(pid \\d+\\) failed: durable log ${foreign}: holds files that are not a durable log's ` +
          `\\(notes\\.txt\\); give an empty or new directory$`,
      ),
    );
  } finally {
    rmSync(foreign, { recursive: true, force: true });
  }
});

test('a broker without a log, SIGKILLed and started again on its port, is a new incarnation: another epoch, offsets from 1 again', async () => {
  let lossy = await startBroker({ mode: 'lossy', keys: KEYS });
  try {
    const publisher = await RawPublisher.connect(lossy);
    clients.push(publisher);
    await publisher.publish(20, KEYS);
    await publisher.waitForAck(20);
    const port = lossy.endpoint.port;
    lossy = await lossy.restart();
    expect(lossy.endpoint.port).toBe(port);
    const again = await RawPublisher.connect(lossy, 20);
    clients.push(again);
    expect(again.welcome.headOffset).toBe(0);
    expect(again.welcome.epoch).not.toBe(publisher.welcome.epoch);
    expect(await again.waitForAck(0)).toEqual({ type: 'ack', version: 0, headOffset: 0 });
    await again.publish(1, KEYS);
    expect(await again.waitForAck(21)).toEqual({ type: 'ack', version: 21, headOffset: 1 });
  } finally {
    await lossy.process.stop();
  }
});
