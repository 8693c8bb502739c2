/**
 * Every rule docs/PROTOCOL.md states about what a client may send, enforced by
 * a real broker process and tried by real QUIC clients: each bad input gets an
 * ERROR with its documented code and loses its stream, and a subscriber
 * following the stream all along (the bystander) sees none of it - no ERROR,
 * no broken stream, no refused change, and a digest that still matches the broker's.
 */
import {
  encodeHello,
  encodePublish,
  ErrorCode,
  FRAME_HEADER_LENGTH,
  MAX_PAYLOAD_BYTES,
  Role,
  type Change,
} from '@state-divergence/protocol';
import { startBroker, type RealBroker, type TestClient } from './fixtures/real-broker.js';
import { Replica } from './fixtures/replica.js';

const KEYS = 16;

let broker: RealBroker;
let bystander: Replica;
/** The highest version the broker has accepted: the next valid PUBLISH must exceed it. */
let highest = 0;
const token = () => Buffer.from(broker.endpoint.token, 'hex');
const change = (overrides: Partial<Change> = {}): Change => ({
  key: 3,
  version: highest + 1,
  value: 42,
  deleted: false,
  publishedAt: Date.now(),
  payloadLength: 16,
  ...overrides,
});

beforeAll(async () => {
  broker = await startBroker({ mode: 'resync', keys: KEYS });
  bystander = await Replica.subscribe(broker, 'bystander');
});

afterAll(async () => {
  await bystander?.close();
  await broker?.process.stop();
});

async function connectPublisher(name: string): Promise<TestClient> {
  const client = await broker.connect();
  await client.write(encodeHello({ role: Role.publisher, name, token: token() }));
  expect((await client.next('WELCOME'))?.type).toBe('welcome');
  return client;
}

/** Publishes valid changes on a fresh publisher stream and waits until the bystander has them. */
async function publishValid(...changes: Change[]): Promise<void> {
  const publisher = await connectPublisher('publisher');
  await publisher.write(Buffer.concat(changes.map((c) => encodePublish(c))));
  highest = Math.max(highest, ...changes.map((c) => c.version));
  await bystander.waitForVersion(highest);
  await publisher.close();
}

/** The bystander is still subscribed, saw no ERROR, and its offsets have no gap. */
function expectBystanderUntouched(): void {
  expect(bystander.problems).toEqual([]);
  expect(bystander.ended).toBe(false);
  bystander.offsets.forEach((offset, i) => expect(offset).toBe(bystander.offsets[0]! + i));
}

/** One byte over the largest payload: the encoder refuses to build it, so the length field is rewritten. */
function overCapPublish(before: Change): Buffer {
  const largest = encodePublish({ ...before, version: before.version + 1, payloadLength: MAX_PAYLOAD_BYTES });
  const frame = Buffer.concat([largest, Buffer.alloc(1)]);
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}

describe('a publisher holding the token cannot send what subscribers could not take', () => {
  test('baseline: valid changes reach the bystander', async () => {
    await publishValid(change({ key: 0 }), change({ key: 1, version: highest + 2 }));
    expectBystanderUntouched();
  });

  // `before` is the valid change sent just ahead of the bad one: versions are judged against it.
  const cases: Array<{ input: string; bad: (before: Change) => Buffer; code: number }> = [
    {
      input: 'a payload of 65,537 bytes (frame 65,563, its EVENT would be 65,571 > 65,570)',
      bad: overCapPublish,
      code: ErrorCode.payloadTooLarge,
    },
    {
      input: `key ${KEYS} with ${KEYS} keys`,
      bad: (before) => encodePublish({ ...before, key: KEYS, version: before.version + 1 }),
      code: ErrorCode.keyOutOfRange,
    },
    {
      input: `key 1000 with ${KEYS} keys`,
      bad: (before) => encodePublish({ ...before, key: 1000, version: before.version + 1 }),
      code: ErrorCode.keyOutOfRange,
    },
    {
      input: 'a version equal to the highest accepted',
      bad: (before) => encodePublish({ ...before, key: 4 }),
      code: ErrorCode.versionNotIncreasing,
    },
    {
      input: 'a version going backwards',
      bad: (before) => encodePublish({ ...before, version: before.version - 1 }),
      code: ErrorCode.versionNotIncreasing,
    },
    {
      input: 'version 0',
      bad: (before) => encodePublish({ ...before, version: 0 }),
      code: ErrorCode.versionNotIncreasing,
    },
    {
      input: 'a delete carrying value 7',
      bad: (before) => encodePublish({ ...before, version: before.version + 1, deleted: true, value: 7 }),
      code: ErrorCode.malformedFrame,
    },
  ];

  test.each(cases)('$input: refused with its code, the stream closed, nothing of it relayed', async ({ bad, code }) => {
    const publisher = await connectPublisher('publisher');
    const before = change();
    // Far above anything else this file publishes: if it ever arrives, the broker read past the bad frame.
    const after = change({ version: before.version + 1_000_000 });
    // Valid, bad, valid in one write: the broker relays the first and reads nothing after the bad one.
    await publisher.write(Buffer.concat([encodePublish(before), bad(before), encodePublish(after)]));
    const refusal = await publisher.refusal();
    expect(refusal.code).toBe(code);
    await publisher.close();
    highest = before.version;
    await bystander.waitForVersion(before.version);
    // A later valid change still arrives; anything relayed from the refused stream would have come before it.
    await publishValid(change());
    expect(bystander.versionsSeen.has(after.version)).toBe(false);
    expectBystanderUntouched();
  });

  test('after a version went backwards, the broker and a replica still agree on the digest', async () => {
    const newer = change({ key: 5, version: highest + 10 });
    await publishValid(newer);
    const publisher = await connectPublisher('publisher');
    await publisher.write(encodePublish(change({ key: 5, version: newer.version - 5, value: 7 })));
    expect((await publisher.refusal()).code).toBe(ErrorCode.versionNotIncreasing);
    await publisher.close();
    // Had the broker applied it, its table would hold version - 5 (last arrival) and the replica version (highest).
    const { broker: digest, local } = await bystander.digests();
    expect(digest.digest).toBe(local);
    expect(digest.offset).toBe(bystander.offsets.at(-1));
    expectBystanderUntouched();
  });
});

describe('HELLO rules', () => {
  test.each([
    ['publisher', Role.publisher],
    ['subscriber', Role.subscriber],
  ])('a %s whose name is not UTF-8 is refused malformedFrame, with no WELCOME', async (_role, role) => {
    const hello = encodeHello({ role, name: 'ab', token: token() });
    hello[FRAME_HEADER_LENGTH + 3] = 0xff; // the name's first byte (after version, role, name length)
    hello[FRAME_HEADER_LENGTH + 4] = 0xfe;
    const client = await broker.connect();
    await client.write(hello);
    const refusal = await client.refusal();
    expect(refusal).toMatchObject({ code: ErrorCode.malformedFrame, framesBefore: [] });
    await client.close();
    expectBystanderUntouched();
  });

  test("a subscriber claiming a connected subscriber's name is refused nameInUse; the owner keeps its stream", async () => {
    const client = await broker.connect();
    await client.write(encodeHello({ role: Role.subscriber, name: 'bystander', token: token() }));
    expect(await client.refusal()).toMatchObject({ code: ErrorCode.nameInUse, framesBefore: [] });
    await client.close();
    await publishValid(change());
    expectBystanderUntouched();
  });
});

describe('the length field, judged as soon as its 4 bytes arrive', () => {
  test('FF FF FF FF and nothing more: frameTooLarge', async () => {
    const client = await broker.connect();
    await client.write(Buffer.from('ffffffff', 'hex'));
    expect((await client.refusal()).code).toBe(ErrorCode.frameTooLarge);
    await client.close();
  });

  test('a valid HELLO, then 00 01 00 23 (65,571) and nothing more: WELCOME, then frameTooLarge', async () => {
    const client = await broker.connect();
    await client.write(
      Buffer.concat([
        encodeHello({ role: Role.subscriber, name: 'short-length', token: token() }),
        Buffer.from('00010023', 'hex'),
      ]),
    );
    const refusal = await client.refusal();
    expect(refusal.code).toBe(ErrorCode.frameTooLarge);
    expect(refusal.framesBefore[0]?.type).toBe('welcome');
    await client.close();
    expectBystanderUntouched();
  });

  test('00 00 00 00 and nothing more: malformedFrame', async () => {
    const client = await broker.connect();
    await client.write(Buffer.alloc(4));
    expect((await client.refusal()).code).toBe(ErrorCode.malformedFrame);
    await client.close();
  });
});

describe('at the end', () => {
  test('the bystander saw every accepted change, no refused one, and its digest equals the broker’s', async () => {
    expect(bystander.versionsSeen.has(highest)).toBe(true);
    const { broker: digest, local } = await bystander.digests();
    expect(digest.digest).toBe(local);
    expectBystanderUntouched();
  });
});
