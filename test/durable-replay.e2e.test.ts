/**
 * A durable broker process (its real log on disk) tried by real QUIC clients written from
 * docs/PROTOCOL.md: the publisher's ACKs, an offset start that replays 20,000 events from the log
 * and joins the live stream with no gap and no duplicate while more are published, one page of
 * memory whatever the distance, and the typed refusals tooOld (below retention) and inFuture
 * (past the head), and `earliest` at the oldest retained offset.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeHello, ErrorCode, Role, StartKind } from '@state-divergence/protocol';
import { sleep } from '@state-divergence/runtime';
import { BATCH_MAX_EVENTS } from '@state-divergence/orchestrator';
import { nextEvent, RawPublisher } from './fixtures/raw-publisher.js';
import { REPLY_MS, startBroker, type RealBroker, type TestClient } from './fixtures/real-broker.js';

const KEYS = 64;
/** The broker's batchMaxEvents: one page of a back-fill. */
const PAGE = BATCH_MAX_EVENTS;
const dirs: string[] = [];
const brokers: RealBroker[] = [];
/** Every client a test opened, closed at the end whatever failed (an open QUIC client keeps the worker alive). */
const clients: Array<{ close(): Promise<void> }> = [];

async function durableBroker(retention: number | null): Promise<RealBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'state-divergence-log-'));
  dirs.push(dir);
  const broker = await startBroker({ mode: 'durable', keys: KEYS, durable: { dir, fsync: 'none', retention } });
  brokers.push(broker);
  return broker;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(brokers.map((b) => b.process.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function subscriber(broker: RealBroker, name: string, start: StartKind, startOffset = 0): Promise<TestClient> {
  const client = await broker.connect();
  clients.push(client);
  await client.write(
    encodeHello({ role: Role.subscriber, name, token: Buffer.from(broker.endpoint.token, 'hex'), start, startOffset }),
  );
  return client;
}

/** The broker's NDJSON log lines with this message (pino writes asynchronously: waits, bounded, for one). */
async function logLines(broker: RealBroker, msg: string): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + REPLY_MS;
  for (;;) {
    const lines = readFileSync(broker.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes(msg))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    if (lines.length > 0 || Date.now() > deadline) return lines;
    await sleep(50);
  }
}

test('an offset start replays 20,000 events from the log a page at a time and joins the changes published meanwhile: each event once, in order', async () => {
  const broker = await durableBroker(null);
  const publisher = await RawPublisher.connect(broker);
  clients.push(publisher);
  // 20,000 events of 102 bytes (64-byte payloads): 2 MB, twice the subscriber's 1 MiB stream window,
  // so the replay cannot finish while the subscriber is not reading.
  await publisher.publish(20_000, KEYS, 200, 64);
  await publisher.waitForAck(20_000);
  const client = await subscriber(broker, 'replayer', StartKind.offset, 100);
  expect(await client.next('WELCOME')).toEqual({ type: 'welcome', headOffset: 20_000, epoch: publisher.welcome.epoch });
  // Not reading: the back-fill is held by flow control, short of the head, while 2,000 more are published and
  // acknowledged.
  await publisher.publish(2_000, KEYS, 200, 64);
  await publisher.waitForAck(22_000);
  const offsets: number[] = [];
  while ((offsets.at(-1) ?? 0) < 22_000) {
    const frame = await nextEvent(client, 'a replayed EVENT');
    if (frame?.type !== 'event')
      throw new Error(`expected an EVENT after offset ${offsets.at(-1)}, got ${JSON.stringify(frame)}`);
    offsets.push(frame.offset);
  }
  expect(offsets.length).toBe(21_900);
  expect(offsets.every((offset, i) => offset === 101 + i)).toBe(true);
  // The writer read the log past the WELCOME's head (the changes published during the replay), never more than a page
  // at a time.
  const [caughtUp] = await logLines(broker, 'back-fill caught up');
  expect(caughtUp).toMatchObject({ subscriber: 'replayer', from: 100, to: 22_000, events: 21_900 });
  expect(caughtUp!.largestPage).toBe(PAGE);
  expect(caughtUp!.pages).toBeGreaterThanOrEqual(Math.ceil(21_900 / PAGE));
  // Then live: the next change arrives as an ordinary event.
  await publisher.publish(1, KEYS);
  expect(await nextEvent(client, 'a live EVENT')).toMatchObject({ type: 'event', offset: 22_001 });
  const report = await broker.process.gather(REPLY_MS);
  expect(report.subscribers.replayer).toMatchObject({
    replayedEvents: 21_900,
    replayBytes: 21_900 * 102,
    dropped: 0,
    backfills: 0,
  });
  expect(report.durable).toEqual({
    fsync: 'none',
    logBytes: expect.any(Number),
    fsyncs: expect.any(Number),
    oldest: 1,
  });
  expect(publisher.problems).toEqual([]);
  await client.close();
  await publisher.close();
});

describe('a durable broker keeping the newest 100 events', () => {
  let broker: RealBroker;
  let publisher: RawPublisher;

  beforeAll(async () => {
    broker = await durableBroker(100);
    publisher = await RawPublisher.connect(broker);
    clients.push(publisher);
  });

  test('the publisher is acknowledged: ACK(0, 0) right after WELCOME on an empty broker, then ACKs up to every version it sent, one per batch', async () => {
    expect(publisher.welcome).toMatchObject({ headOffset: 0 });
    await publisher.waitForAck(0);
    expect(publisher.acks[0]).toEqual({ type: 'ack', version: 0, headOffset: 0 });
    await publisher.publish(300, KEYS, 50);
    expect(await publisher.waitForAck(300)).toEqual({ type: 'ack', version: 300, headOffset: 300 });
    const versions = publisher.acks.map((a) => a.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(publisher.acks.every((a) => a.headOffset === a.version)).toBe(true);
    // One per read of the stream, not one per change: a 1,350-byte datagram carries ~35 of these PUBLISH frames.
    expect(publisher.acks.length).toBeLessThan(300 / 5);
  });

  test('offset 1, whose next event retention discarded: ERROR tooOld carrying the oldest retained offset, 201', async () => {
    const client = await subscriber(broker, 'too-old', StartKind.offset, 1);
    expect(await client.refusal()).toEqual({
      code: ErrorCode.tooOld,
      offset: 201,
      message: 'start offset 1 is too old: the log keeps offsets from 201 on; take a snapshot',
      framesBefore: [],
    });
    await client.close();
  });

  test('an offset past the head: ERROR inFuture carrying the head', async () => {
    const client = await subscriber(broker, 'in-future', StartKind.offset, 305);
    expect(await client.refusal()).toEqual({
      code: ErrorCode.inFuture,
      offset: 300,
      message: 'start offset 305 is beyond the head 300',
      framesBefore: [],
    });
    await client.close();
  });

  test('earliest starts at the oldest retained event, then live', async () => {
    const client = await subscriber(broker, 'earliest', StartKind.earliest);
    expect(await client.next('WELCOME')).toMatchObject({ type: 'welcome', headOffset: 300 });
    const offsets: number[] = [];
    for (let i = 0; i < 100; i++) {
      const frame = await nextEvent(client, 'a replayed EVENT');
      offsets.push(frame?.type === 'event' ? frame.offset : -1);
    }
    expect(offsets).toEqual(Array.from({ length: 100 }, (_, i) => 201 + i));
    await publisher.publish(1, KEYS);
    expect(await nextEvent(client, 'a live EVENT')).toMatchObject({ type: 'event', offset: 301 });
    await client.close();
  });
});
