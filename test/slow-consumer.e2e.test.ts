/**
 * A lossy broker under `--overflow disconnect`, as a real process, with real
 * QUIC clients: a subscriber that stops reading gets ERROR slowConsumer after
 * what was already in flight, its name is free at once, the broker's drop
 * ranges and last-write offsets (the `lastWrites` IPC request) say exactly what
 * it lost; and a real consumer process, frozen with SIGSTOP, learns of the
 * disconnect when it wakes, subscribes again at `latest` and records what it
 * skipped.
 */
import { readFileSync } from 'node:fs';
import {
  encodeHello,
  encodePublish,
  ErrorCode,
  Role,
  StartKind,
  type Frame,
  type LastWrites,
} from '@state-divergence/protocol';
import { sleep } from '@state-divergence/runtime';
import {
  REPLY_MS,
  SLEEPER_WINDOW_BYTES,
  startBroker,
  type RealBroker,
  type TestClient,
} from './fixtures/real-broker.js';
import { Replica } from './fixtures/replica.js';

const KEYS = 64;
/** Big enough that a few hundred unread events fill any transport buffer between broker and client. */
const PAYLOAD = 8 * 1024;
/** Above any one publisher write (PER_WRITE events), so a subscriber that keeps reading is never disconnected. */
const CAPACITY = 64;
const PER_WRITE = 16;
/** Generous: other test files load the same 2 cores. */
const LONG_MS = REPLY_MS * 4;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const release of cleanup.splice(0).reverse()) await release().catch(() => {});
});

interface DisconnectLine {
  msg: string;
  subscriber?: string;
  firstOffset?: number;
  lastOffset?: number;
}

function disconnectLine(broker: RealBroker, name: string): DisconnectLine | undefined {
  const lines = readFileSync(broker.logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as DisconnectLine);
  return lines.find((line) => line.msg === 'slow consumer disconnected' && line.subscriber === name);
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + LONG_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await sleep(50);
  }
}

/** A broker under disconnect, a watcher that reads everything (it paces the publisher) and the publisher. */
async function cluster() {
  const broker = await startBroker({ mode: 'lossy', keys: KEYS, queueCapacity: CAPACITY, overflow: 'disconnect' });
  cleanup.push(() => broker.process.stop());
  const token = Buffer.from(broker.endpoint.token, 'hex');
  const watcher = await Replica.subscribe(broker, 'watcher', StartKind.latest);
  cleanup.push(() => watcher.close());
  const publisher = await broker.connect();
  cleanup.push(() => publisher.close());
  await publisher.write(encodeHello({ role: Role.publisher, name: 'publisher', token }));
  expect((await publisher.next('WELCOME'))?.type).toBe('welcome');
  let version = 0;
  /** Offsets are versions: one publisher, every change accepted. The last offset per key, as the broker must report it.
   * */
  const lastOffsets = new Float64Array(KEYS);
  const publish = async (count: number, payloadLength = PAYLOAD): Promise<void> => {
    for (let sent = 0; sent < count; sent += PER_WRITE) {
      const batch = Array.from({ length: Math.min(PER_WRITE, count - sent) }, () => {
        version += 1;
        const key = (version * 7) % KEYS;
        lastOffsets[key] = version;
        return encodePublish({ key, version, value: version, deleted: false, publishedAt: Date.now(), payloadLength });
      });
      await publisher.write(Buffer.concat(batch));
      await watcher.waitForVersion(version);
    }
  };
  /** Publishes until the broker has disconnected `name` (bounded: 40 MB at most); returns its log line. */
  const publishUntilDisconnected = async (name: string): Promise<Required<DisconnectLine>> => {
    for (let round = 0; round < 100 && disconnectLine(broker, name) === undefined; round++) await publish(50);
    await until(() => disconnectLine(broker, name) !== undefined, `the broker to disconnect ${name}`);
    const line = disconnectLine(broker, name)!;
    return { msg: line.msg, subscriber: name, firstOffset: line.firstOffset!, lastOffset: line.lastOffset! };
  };
  return { broker, token, watcher, publish, publishUntilDisconnected, head: () => version, lastOffsets };
}

function expectOffsets(answer: LastWrites, lastOffsets: Float64Array): void {
  // from another realm: not instanceof here
  expect(Object.prototype.toString.call(answer.offsets)).toBe('[object Float64Array]');
  expect([...answer.offsets]).toEqual([...lastOffsets]);
}

test('a subscriber that stops reading gets ERROR slowConsumer after what was in flight; its name is free at once; lastWrites says what it lost', async () => {
  const { broker, token, watcher, publish, publishUntilDisconnected, head, lastOffsets } = await cluster();
  const sleeper: TestClient = await broker.connect({ streamWindowBytes: SLEEPER_WINDOW_BYTES });
  cleanup.push(() => sleeper.close());
  await sleeper.write(encodeHello({ role: Role.subscriber, name: 'sleeper', token, start: StartKind.latest }));
  const welcome = await sleeper.next('WELCOME');
  if (welcome?.type !== 'welcome') throw new Error(`sleeper not admitted: ${JSON.stringify(welcome)}`);
  // From here the sleeper reads nothing until the broker has disconnected it.
  const { firstOffset, lastOffset } = await publishUntilDisconnected('sleeper');
  expect(lastOffset - firstOffset + 1).toBe(CAPACITY + 1); // its full queue and the event that overflowed

  const during = await broker.process.lastWrites(REPLY_MS);
  expect(during).toMatchObject({
    head: head(),
    dropped: { sleeper: [[firstOffset, lastOffset]], watcher: [] },
    disconnectedAt: { sleeper: lastOffset },
  });
  expectOffsets(during, lastOffsets);

  // The name is free while the old stream still holds unread frames: a new subscription of it is admitted.
  const again = await Replica.subscribe(broker, 'sleeper', StartKind.latest);
  cleanup.push(() => again.close());
  await publish(20, 16);
  await again.waitForVersion(head());
  expect(again.problems).toEqual([]);
  const after = await broker.process.lastWrites(REPLY_MS);
  expect(after).toMatchObject({ head: head(), dropped: { sleeper: [[firstOffset, lastOffset]] }, disconnectedAt: {} });
  expectOffsets(after, lastOffsets);

  // The old stream: every event handed to it before the overflow, contiguous, then the ERROR, then its end.
  const { code, message, framesBefore } = await sleeper.refusal();
  expect(code).toBe(ErrorCode.slowConsumer);
  expect(message).toMatch(new RegExp(`^slow consumer: sleeper's queue of ${CAPACITY} events was full`));
  const offsets = framesBefore.map((frame: Frame) => (frame.type === 'event' ? frame.offset : -1));
  expect(offsets).toEqual(
    Array.from({ length: firstOffset - welcome.headOffset - 1 }, (_, i) => welcome.headOffset + 1 + i),
  );

  const report = await broker.process.gather(REPLY_MS);
  expect(report.subscribers['sleeper']).toMatchObject({
    disconnects: 1,
    dropped: CAPACITY + 1,
    droppedRanges: [[firstOffset, lastOffset]],
    endedEarly: null,
  });
  expect(report.subscribers['watcher']).toMatchObject({ disconnects: 0, dropped: 0 });
  expect(watcher.problems).toEqual([]);
});

test('a frozen consumer process learns of the disconnect after SIGCONT, subscribes again at latest under the same name, and records what it skipped', async () => {
  const { broker, publish, publishUntilDisconnected, head } = await cluster();
  const consumer = await broker.startConsumer('consumer-1');
  cleanup.push(() => consumer.stop());
  await publish(10, 16);
  await until(
    async () => (await consumer.status(REPLY_MS)).lastOffset === head(),
    'the consumer to apply the first events',
  );

  consumer.freeze();
  const { firstOffset, lastOffset } = await publishUntilDisconnected('consumer-1');
  await publish(30, 16); // published while it has no subscription: skipped when it subscribes again at latest
  expect((await broker.process.lastWrites(REPLY_MS)).disconnectedAt).toEqual({ 'consumer-1': lastOffset });
  consumer.thaw();

  await until(async () => (await consumer.status(REPLY_MS)).reconnects === 1, 'the consumer to subscribe again');
  await publish(10, 16);
  await until(
    async () => (await consumer.status(REPLY_MS)).lastOffset === head(),
    'the consumer to apply events after its new subscription',
  );
  const report = await consumer.gather(REPLY_MS);
  expect(report).toMatchObject({ disconnects: 1, reconnects: 1, endedEarly: null });
  // It had everything before the broker's first drop; the new WELCOME's head is at or past the disconnect and the
  // events after it.
  expect(report.skippedRanges).toHaveLength(1);
  const [skippedFrom, skippedTo] = report.skippedRanges[0]!;
  expect(skippedFrom).toBe(firstOffset);
  expect(skippedTo).toBeGreaterThanOrEqual(lastOffset + 30);
  expect(skippedTo).toBeLessThan(head());

  const brokerReport = await broker.process.gather(REPLY_MS);
  expect(brokerReport.subscribers['consumer-1']).toMatchObject({
    disconnects: 1,
    droppedRanges: [[firstOffset, lastOffset]],
    endedEarly: null,
    lastAccepted: head(),
  });
  expect((await broker.process.lastWrites(REPLY_MS)).disconnectedAt).toEqual({});
});
