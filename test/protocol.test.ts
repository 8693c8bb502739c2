import {
  encodeDigest,
  encodeDigestRequest,
  encodeLag,
  encodeProgress,
  encodeResume,
  encodeSyncEnd,
  FrameType,
  StartKind,
  StateDigest,
  SyncKind,
  encodeError,
  encodeEvent,
  encodeEventFromPublishBody,
  encodeHello,
  encodePublish,
  encodeWelcome,
  ErrorCode,
  FrameDecodeError,
  FrameDecoder,
  MAX_FRAME_LENGTH,
  Role,
  type Change,
  type Frame,
} from '@state-divergence/protocol';

const change: Change = { key: 1999, version: 2 ** 40 + 7, value: 0xdeadbeef, deleted: false, publishedAt: 1_790_000_000_123.456, payloadLength: 64 };
const tombstone: Change = { key: 5, version: 99, value: 0, deleted: true, publishedAt: 1_790_000_000_000, payloadLength: 0 };

function decodeAll(...chunks: Uint8Array[]): Frame[] {
  const decoder = new FrameDecoder();
  const frames: Frame[] = [];
  for (const chunk of chunks) {
    decoder.push(chunk);
    for (let frame = decoder.next(); frame !== null; frame = decoder.next()) frames.push(frame);
  }
  return frames;
}

function decodeError(bytes: Uint8Array): FrameDecodeError {
  const decoder = new FrameDecoder();
  decoder.push(bytes);
  try {
    while (decoder.next() !== null);
  } catch (error) {
    return error as FrameDecodeError;
  }
  throw new Error('expected a FrameDecodeError, decoded fine');
}

describe('frame codec', () => {
  const stream = Buffer.concat([
    encodeHello({ role: Role.subscriber, name: 'consumer-3', token: Buffer.from('0badc0de', 'hex'), start: StartKind.offset, startOffset: 2 ** 33 }),
    encodeWelcome(12_345),
    encodePublish(change),
    encodeEvent(42, change),
    encodeEventFromPublishBody(41, encodePublish(tombstone).subarray(5), FrameType.state),
    encodeSyncEnd(SyncKind.snapshot, 41),
    encodeLag(43, 900),
    encodeProgress(900),
    encodeResume(42),
    encodeDigestRequest(),
    encodeDigest(900, '0123456789abcdef', 1999),
    encodeError(ErrorCode.unexpectedFrame, 'subscribers only listen'),
  ]);
  const expected: Frame[] = [
    { type: 'hello', protocolVersion: 1, role: Role.subscriber, name: 'consumer-3', start: StartKind.offset, startOffset: 2 ** 33, token: new Uint8Array([0x0b, 0xad, 0xc0, 0xde]) },
    { type: 'welcome', headOffset: 12_345 },
    { type: 'publish', change, body: encodePublish(change).subarray(5) },
    { type: 'event', offset: 42, change },
    { type: 'state', offset: 41, change: tombstone },
    { type: 'syncEnd', kind: SyncKind.snapshot, offset: 41 },
    { type: 'lag', from: 43, to: 900 },
    { type: 'progress', headOffset: 900 },
    { type: 'resume', fromOffset: 42 },
    { type: 'digestRequest' },
    { type: 'digest', offset: 900, digest: '0123456789abcdef', liveKeys: 1999 },
    { type: 'error', code: ErrorCode.unexpectedFrame, message: 'subscribers only listen' },
  ];

  test('every frame type round-trips through one decoder', () => {
    const frames = decodeAll(stream);
    expect(frames.map((f) => (f.type === 'publish' ? { ...f, body: Buffer.from(f.body) } : f))).toEqual(
      expected.map((f) => (f.type === 'publish' ? { ...f, body: Buffer.from(f.body) } : f)),
    );
  });

  test('a stream split at every byte boundary decodes to the same frames', () => {
    const whole = decodeAll(stream);
    for (let cut = 1; cut < stream.length; cut++) {
      expect(decodeAll(stream.subarray(0, cut), stream.subarray(cut))).toEqual(whole);
    }
  });

  test('a stream fed one byte at a time decodes to the same frames', () => {
    const bytes = Array.from(stream, (b) => Uint8Array.of(b));
    expect(decodeAll(...bytes)).toEqual(decodeAll(stream));
  });

  test('an EVENT built from a PUBLISH body equals one encoded from the change', () => {
    const publishBody = encodePublish(change).subarray(5);
    expect(encodeEventFromPublishBody(7, publishBody)).toEqual(encodeEvent(7, change));
  });

  test('decoded frames do not alias the chunk they came from', () => {
    const bytes = Buffer.from(encodePublish(change));
    const decoder = new FrameDecoder();
    decoder.push(bytes);
    const frame = decoder.next();
    bytes.fill(0xff);
    expect(frame).toMatchObject({ type: 'publish', change });
    expect(frame?.type === 'publish' && Buffer.from(frame.body).equals(encodePublish(change).subarray(5))).toBe(true);
  });

  test('an oversized length is rejected from the header alone, before the body arrives', () => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(MAX_FRAME_LENGTH + 1, 0);
    header.writeUInt8(0x04, 4);
    const error = decodeError(header);
    expect(error.code).toBe(ErrorCode.frameTooLarge);
  });

  test('an unknown frame type is rejected with its code', () => {
    expect(decodeError(Buffer.from([0, 0, 0, 1, 0x7f])).code).toBe(ErrorCode.unknownFrameType);
  });

  test('a zero length, a short body and a bad hello are malformed', () => {
    expect(decodeError(Buffer.from([0, 0, 0, 0, 0x01])).code).toBe(ErrorCode.malformedFrame);
    expect(decodeError(Buffer.from([0, 0, 0, 3, 0x04, 0, 0])).code).toBe(ErrorCode.malformedFrame);
    const hello = Buffer.from(encodeHello({ role: Role.publisher, name: 'p', token: Buffer.alloc(4) }));
    hello.writeUInt8(9, 6); // role 9 does not exist
    expect(decodeError(hello).code).toBe(ErrorCode.malformedFrame);
    const longName = Buffer.from(encodeHello({ role: Role.publisher, name: 'p', token: Buffer.alloc(4) }));
    longName.writeUInt8(50, 7); // name length beyond the frame
    expect(decodeError(longName).code).toBe(ErrorCode.malformedFrame);
    const longToken = Buffer.from(encodeHello({ role: Role.publisher, name: 'p', token: Buffer.alloc(4) }));
    longToken.writeUInt8(40, 5 + 3 + 1 + 9); // token length beyond the frame
    expect(decodeError(longToken).code).toBe(ErrorCode.malformedFrame);
  });

  test('unknown change flags, start kinds and sync kinds are malformed', () => {
    const publish = Buffer.from(encodePublish(change));
    publish.writeUInt8(0x80, 5 + 16); // flags byte
    expect(decodeError(publish).code).toBe(ErrorCode.malformedFrame);
    const hello = Buffer.from(encodeHello({ role: Role.subscriber, name: 'c', token: Buffer.alloc(4) }));
    hello.writeUInt8(7, 5 + 3 + 1); // start kind after the 1-byte name
    expect(decodeError(hello).code).toBe(ErrorCode.malformedFrame);
    const syncEnd = Buffer.from(encodeSyncEnd(SyncKind.delta, 1));
    syncEnd.writeUInt8(9, 5);
    expect(decodeError(syncEnd).code).toBe(ErrorCode.malformedFrame);
  });

  test('a u64 beyond 2^53 is malformed, not silently rounded', () => {
    const welcome = Buffer.from(encodeWelcome(1));
    welcome.writeUInt32BE(0xffff_ffff, 5);
    expect(decodeError(welcome).code).toBe(ErrorCode.malformedFrame);
  });

  test('after the first error the decoder stays failed and never resyncs', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.from([0, 0, 0, 1, 0x7f]));
    expect(() => decoder.next()).toThrow(FrameDecodeError);
    decoder.push(encodeWelcome(1));
    expect(() => decoder.next()).toThrow(FrameDecodeError);
  });

  test('random garbage never crashes the decoder: it yields frames or one coded error', () => {
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let round = 0; round < 2000; round++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
      const decoder = new FrameDecoder();
      decoder.push(bytes);
      try {
        while (decoder.next() !== null);
      } catch (error) {
        expect(error).toBeInstanceOf(FrameDecodeError);
        expect(Object.values(ErrorCode)).toContain((error as FrameDecodeError).code);
      }
    }
  });
});

describe('the byte layouts in docs/PROTOCOL.md', () => {
  const hex = (text: string) => Buffer.from(text.replace(/[^0-9a-f]/gi, ''), 'hex');

  test('HELLO: the documented example, byte for byte', () => {
    const bytes = encodeHello({ role: Role.subscriber, name: 'c1', token: hex('ab cd') });
    expect(bytes).toEqual(hex('00 00 00 12 01 | 01 02 02 63 31 | 00 | 00 00 00 00 00 00 00 00 | 02 AB CD'));
  });

  test('EVENT: offset, key, version, value, flags, publishedAt, payload at the documented offsets', () => {
    const bytes = encodeEvent(0x0102, { key: 7, version: 2 ** 32 + 5, value: 9, deleted: true, publishedAt: 1.5, payloadLength: 2 });
    expect(bytes).toEqual(
      hex(
        '00 00 00 24 04' + // length 36 = 1 + 8 + 25 + 2, type EVENT
          '00 00 00 00 00 00 01 02' + // offset
          '00 00 00 07' + // key
          '00 00 00 01 00 00 00 05' + // version (u64: high word, low word)
          '00 00 00 09' + // value
          '01' + // flags: delete
          '3f f8 00 00 00 00 00 00' + // publishedAt 1.5 as f64
          '00 00', // payload
      ),
    );
  });

  test('the largest legal frame is exactly at the cap', () => {
    expect(encodeEvent(1, { ...change, payloadLength: 65_536 }).length - 4).toBe(MAX_FRAME_LENGTH);
  });
});

describe('state digest', () => {
  test('depends on the set of (key, version) pairs, not on the order they were added', () => {
    const a = new StateDigest();
    const b = new StateDigest();
    const pairs = Array.from({ length: 500 }, (_, i) => [i * 7, i * 13 + 1] as const);
    for (const [k, v] of pairs) a.add(k, v);
    for (const [k, v] of [...pairs].reverse()) b.add(k, v);
    expect(a.toString()).toBe(b.toString());
    expect(a.size).toBe(500);
  });

  test('changes when one version differs, and remove undoes add', () => {
    const a = new StateDigest();
    a.add(1, 10);
    a.add(2, 20);
    const before = a.toString();
    a.remove(2, 20);
    a.add(2, 21);
    expect(a.toString()).not.toBe(before);
    a.remove(2, 21);
    a.add(2, 20);
    expect(a.toString()).toBe(before);
  });
});
