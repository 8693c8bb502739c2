/**
 * Four rules a client written from docs/PROTOCOL.md alone found open, now
 * decided there and enforced by a real broker process, tried by real QUIC
 * clients: a RESUME beyond the head, a PUBLISH before HELLO, a start offset
 * with start kind `latest` or `snapshot`, and a publisher HELLO that asks for
 * a start. Each gets its documented ERROR code and loses its stream; a
 * subscriber following the stream all along sees none of it.
 */
import {
  encodeHello,
  encodePublish,
  encodeResume,
  ErrorCode,
  Role,
  StartKind,
  type Change,
} from '@state-divergence/protocol';
import { startBroker, type RealBroker, type TestClient } from './fixtures/real-broker.js';
import { Replica } from './fixtures/replica.js';

const KEYS = 16;
let broker: RealBroker;
let bystander: Replica;
let highest = 0;
const token = () => Buffer.from(broker.endpoint.token, 'hex');
const change = (overrides: Partial<Change> = {}): Change => ({
  key: 3,
  version: highest + 1,
  value: 42,
  deleted: false,
  publishedAt: Date.now(),
  payloadLength: 8,
  ...overrides,
});

beforeAll(async () => {
  broker = await startBroker({ mode: 'lossy', keys: KEYS });
  bystander = await Replica.subscribe(broker, 'bystander', StartKind.latest);
  // Three accepted changes: the head is 3.
  const publisher = await helloed(Role.publisher, 'publisher');
  await publisher.write(Buffer.concat([1, 2, 3].map((version) => encodePublish(change({ version })))));
  highest = 3;
  await bystander.waitForVersion(highest);
  await publisher.close();
});

afterAll(async () => {
  await bystander?.close();
  await broker?.process.stop();
});

/** A client whose HELLO was welcomed. */
async function helloed(
  role: Role,
  name: string,
  start: StartKind = StartKind.latest,
  startOffset = 0,
): Promise<TestClient> {
  const client = await broker.connect();
  await client.write(encodeHello({ role, name, token: token(), start, startOffset }));
  expect(await client.next('WELCOME')).toEqual({ type: 'welcome', headOffset: highest, epoch: expect.any(Number) });
  return client;
}

/** Sends `bytes` as a client's first bytes and returns the broker's refusal. */
async function refusalOf(bytes: Buffer): Promise<{ code: number; message: string; framesBefore: unknown[] }> {
  const client = await broker.connect();
  await client.write(bytes);
  const refusal = await client.refusal();
  await client.close();
  return refusal;
}

function expectBystanderUntouched(): void {
  expect(bystander.problems).toEqual([]);
  expect(bystander.ended).toBe(false);
  expect(bystander.versionsSeen.has(999)).toBe(false);
}

describe('ACK, in a mode without a log too', () => {
  test('a publisher gets ACK(highest version, head) right after WELCOME, then an ACK covering the versions it publishes', async () => {
    const publisher = await helloed(Role.publisher, 'publisher');
    expect(await publisher.next('ACK')).toEqual({ type: 'ack', version: highest, headOffset: highest });
    await publisher.write(
      Buffer.concat([highest + 1, highest + 2].map((version) => encodePublish(change({ version })))),
    );
    let ack = await publisher.next('ACK');
    // the two may arrive in two reads
    if (ack?.type === 'ack' && ack.version < highest + 2) ack = await publisher.next('ACK');
    expect(ack).toEqual({ type: 'ack', version: highest + 2, headOffset: highest + 2 });
    highest += 2;
    await bystander.waitForVersion(highest);
    await publisher.close();
    expectBystanderUntouched();
  });
});

describe('RESUME', () => {
  test('from the head is answered with an empty delta: SYNC_END(2, head)', async () => {
    const client = await helloed(Role.subscriber, 'resume-at-head');
    await client.write(encodeResume(highest));
    expect(await client.next('SYNC_END')).toEqual({ type: 'syncEnd', kind: 2, offset: highest });
    await client.close();
  });

  test('from beyond the head is refused inFuture, carrying the head, with no SYNC_END that would read as current', async () => {
    const client = await helloed(Role.subscriber, 'resume-beyond');
    await client.write(encodeResume(highest + 5));
    const refusal = await client.refusal();
    expect(refusal).toEqual({
      code: ErrorCode.inFuture,
      offset: highest,
      message: `resume from ${highest + 5} is beyond the head ${highest}`,
      framesBefore: [],
    });
    await client.close();
    expectBystanderUntouched();
  });
});

describe('a PUBLISH before HELLO: the decoder judges its shape, then it is out of order; the run is never revealed', () => {
  test.each([
    [
      'a delete carrying a value (rule 2, the decoder)',
      change({ deleted: true, value: 7, version: 999 }),
      ErrorCode.malformedFrame,
    ],
    [
      'a key outside the keyspace (rule 4, not applied before HELLO)',
      change({ key: 1000, version: 999 }),
      ErrorCode.unexpectedFrame,
    ],
    ['version 0 (rule 5, not applied before HELLO)', change({ version: 0 }), ErrorCode.unexpectedFrame],
    ['a change breaking no rule', change({ version: 999 }), ErrorCode.unexpectedFrame],
  ])('%s: refused with code %i', async (_what, bad, code) => {
    const refusal = await refusalOf(encodePublish(bad));
    expect(refusal.code).toBe(code);
    expect(refusal.framesBefore).toEqual([]);
    expectBystanderUntouched();
  });
});

describe('HELLO start fields', () => {
  test.each([
    [
      'a subscriber at latest with start offset 2',
      Role.subscriber,
      StartKind.latest,
      2,
      'hello has start offset 2 with start kind 0; only start kind 2 (offset) carries one',
    ],
    [
      'a subscriber at snapshot with start offset 1',
      Role.subscriber,
      StartKind.snapshot,
      1,
      'hello has start offset 1 with start kind 1; only start kind 2 (offset) carries one',
    ],
    [
      'a publisher asking for a snapshot',
      Role.publisher,
      StartKind.snapshot,
      0,
      "a publisher's hello must have start kind 0 (latest), got 1",
    ],
    [
      'a publisher asking for a delta from offset 1',
      Role.publisher,
      StartKind.offset,
      1,
      "a publisher's hello must have start kind 0 (latest), got 2",
    ],
  ])('%s is refused malformedFrame, with no WELCOME', async (_what, role, start, startOffset, message) => {
    const refusal = await refusalOf(encodeHello({ role, name: 'strict', token: token(), start, startOffset }));
    expect(refusal).toEqual({ code: ErrorCode.malformedFrame, message, framesBefore: [] });
    expectBystanderUntouched();
  });

  test('a subscriber at offset with its offset, and a publisher at latest, are still welcomed', async () => {
    const resuming = await helloed(Role.subscriber, 'from-offset', StartKind.offset, 1);
    expect(await resuming.next('STATE')).toMatchObject({ type: 'state' }); // key 3, last written at offset 3 > 1
    await resuming.close();
    const publisher = await helloed(Role.publisher, 'publisher');
    await publisher.close();
    expectBystanderUntouched();
  });
});
