import { readFileSync } from 'node:fs';
import {
  DIGEST_SEED_HIGH,
  DIGEST_SEED_LOW,
  digestMix,
  encodeAck,
  encodeOffsetError,
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
  MAX_ERROR_MESSAGE_BYTES,
  MAX_FRAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  publishRefusal,
  Role,
  type Change,
  type Frame,
} from '@state-divergence/protocol';

const change: Change = {
  key: 1999,
  version: 2 ** 40 + 7,
  value: 0xdeadbeef,
  deleted: false,
  publishedAt: 1_790_000_000_123.456,
  payloadLength: 64,
};
const tombstone: Change = {
  key: 5,
  version: 99,
  value: 0,
  deleted: true,
  publishedAt: 1_790_000_000_000,
  payloadLength: 0,
};

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
    encodeHello({
      role: Role.subscriber,
      name: 'consumer-3',
      token: Buffer.from('0badc0de', 'hex'),
      start: StartKind.offset,
      startOffset: 2 ** 33,
    }),
    encodeWelcome(12_345, 7),
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
    encodeAck(2 ** 40 + 7, 12_346),
    encodeOffsetError(ErrorCode.tooOld, 3_000, 'the log keeps offsets from 3000 on'),
    encodeOffsetError(ErrorCode.inFuture, 2 ** 53 - 1, ''),
    encodeHello({ role: Role.subscriber, name: 'c', token: Buffer.alloc(1), start: StartKind.earliest }),
  ]);
  const expected: Frame[] = [
    {
      type: 'hello',
      protocolVersion: 2,
      role: Role.subscriber,
      name: 'consumer-3',
      start: StartKind.offset,
      startOffset: 2 ** 33,
      token: new Uint8Array([0x0b, 0xad, 0xc0, 0xde]),
    },
    { type: 'welcome', headOffset: 12_345, epoch: 7 },
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
    { type: 'ack', version: 2 ** 40 + 7, headOffset: 12_346 },
    { type: 'error', code: ErrorCode.tooOld, offset: 3_000, message: 'the log keeps offsets from 3000 on' },
    { type: 'error', code: ErrorCode.inFuture, offset: 2 ** 53 - 1, message: '' },
    {
      type: 'hello',
      protocolVersion: 2,
      role: Role.subscriber,
      name: 'c',
      start: StartKind.earliest,
      startOffset: 0,
      token: new Uint8Array([0]),
    },
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
    const welcome = Buffer.from(encodeWelcome(1, 1));
    welcome.writeUInt32BE(0xffff_ffff, 5);
    expect(decodeError(welcome).code).toBe(ErrorCode.malformedFrame);
  });

  test('after the first error the decoder stays failed and never resyncs', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.from([0, 0, 0, 1, 0x7f]));
    expect(() => decoder.next()).toThrow(FrameDecodeError);
    decoder.push(encodeWelcome(1, 1));
    expect(() => decoder.next()).toThrow(FrameDecodeError);
  });

  test('random garbage never crashes the decoder: it yields frames or one coded error', () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 2000; round++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)),
      );
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
    expect(bytes).toEqual(hex('00 00 00 12 01 | 02 02 02 63 31 | 00 | 00 00 00 00 00 00 00 00 | 02 AB CD'));
  });

  test('WELCOME: head then epoch, 17 bytes of length', () => {
    expect(encodeWelcome(0x0102, 2 ** 32 + 9)).toEqual(
      hex('00 00 00 11 02 | 00 00 00 00 00 00 01 02 | 00 00 00 01 00 00 00 09'),
    );
  });

  test('ACK: version then head, 17 bytes of length', () => {
    expect(encodeAck(0x0a0b, 7)).toEqual(hex('00 00 00 11 0D | 00 00 00 00 00 00 0A 0B | 00 00 00 00 00 00 00 07'));
  });

  test('ERROR tooOld and inFuture: code, the offset, then the message; the documented example byte for byte', () => {
    expect(encodeOffsetError(ErrorCode.tooOld, 501, 'old')).toEqual(
      hex('00 00 00 0E 05 | 00 0C | 00 00 00 00 00 00 01 F5 | 6F 6C 64'),
    );
    expect(encodeOffsetError(ErrorCode.inFuture, 7, '')).toEqual(
      hex('00 00 00 0B 05 | 00 0D | 00 00 00 00 00 00 00 07'),
    );
    expect(() => encodeError(ErrorCode.tooOld, 'no offset')).toThrow(RangeError);
  });

  test('an offset ERROR too short for its offset is malformed; another code keeps its message as text', () => {
    expect(decodeError(hex('00 00 00 0A 05 | 00 0C | 00 00 00 00 00 00 00')).code).toBe(ErrorCode.malformedFrame);
    expect(decodeAll(hex('00 00 00 05 05 | 00 04 | 68 69'))).toEqual([
      { type: 'error', code: ErrorCode.unexpectedFrame, message: 'hi' },
    ]);
  });

  test('EVENT: offset, key, version, value, flags, publishedAt, payload at the documented offsets', () => {
    const bytes = encodeEvent(0x0102, {
      key: 7,
      version: 2 ** 32 + 5,
      value: 9,
      deleted: true,
      publishedAt: 1.5,
      payloadLength: 2,
    });
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

describe('the length field, judged from its 4 bytes alone', () => {
  const firstError = (decoder: FrameDecoder): FrameDecodeError | null => {
    try {
      decoder.next();
      return null;
    } catch (error) {
      return error as FrameDecodeError;
    }
  };

  test.each([
    ['00 01 00 23 (65,571: one above the cap)', '00010023', ErrorCode.frameTooLarge],
    ['FF FF FF FF', 'ffffffff', ErrorCode.frameTooLarge],
    ['00 00 00 00 (no room for a type)', '00000000', ErrorCode.malformedFrame],
  ])('%s is refused before a type byte arrives', (_name, hex, code) => {
    const decoder = new FrameDecoder();
    const bytes = Buffer.from(hex, 'hex');
    // Three bytes decide nothing; the fourth decides.
    decoder.push(bytes.subarray(0, 3));
    expect(decoder.next()).toBeNull();
    decoder.push(bytes.subarray(3));
    expect(firstError(decoder)?.code).toBe(code);
  });

  test('the cap itself passes the length check: the decoder then waits for the body', () => {
    const decoder = new FrameDecoder();
    const header = Buffer.alloc(5);
    header.writeUInt32BE(MAX_FRAME_LENGTH, 0);
    header.writeUInt8(FrameType.event, 4);
    decoder.push(header);
    expect(decoder.next()).toBeNull();
  });
});

describe('values no frame may carry', () => {
  test('a delete carrying a value is malformed; a delete with value 0 decodes', () => {
    expect(decodeError(encodePublish({ ...tombstone, value: 7 })).code).toBe(ErrorCode.malformedFrame);
    expect(decodeError(encodeEvent(3, { ...tombstone, value: 1 })).code).toBe(ErrorCode.malformedFrame);
    expect(decodeAll(encodePublish(tombstone))).toMatchObject([{ type: 'publish', change: tombstone }]);
  });

  test.each([
    ['a stray continuation byte', [0x80]],
    ['FF FE', [0xff, 0xfe]],
    ['a cut 3-byte sequence', [0xe2, 0x82]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ["an overlong '/'", [0xc0, 0xaf]],
  ])('a HELLO name with %s is malformed', (_name, bytes) => {
    const hello = encodeHello({ role: Role.subscriber, name: 'x'.repeat(bytes.length), token: Buffer.alloc(4) });
    Buffer.from(bytes).copy(hello, 5 + 3); // header, then version, role, name length
    expect(decodeError(hello).code).toBe(ErrorCode.malformedFrame);
  });

  test('any valid UTF-8 name round-trips', () => {
    const name = 'consumer-ü-日本-🙂';
    expect(decodeAll(encodeHello({ role: Role.subscriber, name, token: Buffer.alloc(4) }))).toMatchObject([
      { type: 'hello', name },
    ]);
  });
});

describe('every frame the broker sends fits the cap', () => {
  const frameLength = (frame: Uint8Array) => frame.length - 4;

  test('EVENT and STATE of the largest payload the broker accepts are exactly at the cap', () => {
    const body = encodePublish({ ...change, payloadLength: MAX_PAYLOAD_BYTES }).subarray(5);
    expect(frameLength(encodeEventFromPublishBody(1, body))).toBe(MAX_FRAME_LENGTH);
    expect(frameLength(encodeEventFromPublishBody(1, body, FrameType.state))).toBe(MAX_FRAME_LENGTH);
  });

  test('an ERROR quoting anything is cut to 1,024 bytes on a character boundary, and decodes', () => {
    for (const message of ['x'.repeat(100_000), 'é'.repeat(5_000), '日'.repeat(5_000), '🙂'.repeat(5_000)]) {
      const frame = encodeError(ErrorCode.malformedFrame, message);
      expect(frameLength(frame)).toBeLessThanOrEqual(1 + 2 + MAX_ERROR_MESSAGE_BYTES);
      const [decoded] = decodeAll(frame);
      const text = decoded?.type === 'error' ? decoded.message : '';
      expect(text.length).toBeGreaterThan(0);
      expect(message.startsWith(text)).toBe(true); // no U+FFFD: the cut never splits a character
      expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_ERROR_MESSAGE_BYTES - 4);
    }
  });

  test('an ERROR with an offset is cut the same way: at most 1,035 bytes of length', () => {
    const frame = encodeOffsetError(ErrorCode.inFuture, 2 ** 53 - 1, '日'.repeat(5_000));
    expect(frameLength(frame)).toBeLessThanOrEqual(1 + 2 + 8 + MAX_ERROR_MESSAGE_BYTES);
    expect(frameLength(frame)).toBeGreaterThan(1 + 2 + 8 + MAX_ERROR_MESSAGE_BYTES - 4);
    expect(decodeAll(frame)).toMatchObject([{ type: 'error', code: ErrorCode.inFuture, offset: 2 ** 53 - 1 }]);
  });

  test("the fixed-size frames are far below it, with the lengths the doc's table gives", () => {
    const lengths = [
      encodeDigest(1, '0123456789abcdef', 1),
      encodeLag(1, 2),
      encodeWelcome(2 ** 53 - 1, 2 ** 53 - 1),
      encodeAck(2 ** 53 - 1, 2 ** 53 - 1),
      encodeSyncEnd(SyncKind.delta, 1),
      encodeProgress(1),
    ].map(frameLength);
    expect(lengths).toEqual([21, 17, 17, 17, 10, 9]);
    const doc = readFileSync(new URL('../docs/PROTOCOL.md', import.meta.url), 'utf8');
    for (const [row, length] of [
      ['DIGEST', 21],
      ['LAG', 17],
      ['WELCOME, ACK', 17],
      ['SYNC_END', 10],
      ['PROGRESS', 9],
      ['ERROR tooOld, inFuture', 1_035],
    ] as const) {
      expect(doc).toContain(`| ${row} | ${length.toLocaleString('en-US')} | `);
    }
  });
});

describe('what a PUBLISH may mean (publishRefusal, the broker rules 3-5 of docs/PROTOCOL.md)', () => {
  const limits = { keys: 16, highestVersion: 100 };
  const ok: Change = {
    key: 15,
    version: 101,
    value: 1,
    deleted: false,
    publishedAt: 0,
    payloadLength: MAX_PAYLOAD_BYTES,
  };

  test('the boundary values pass', () => {
    expect(publishRefusal(ok, limits)).toBeNull();
    expect(publishRefusal({ ...ok, key: 0, payloadLength: 0, version: Number.MAX_SAFE_INTEGER }, limits)).toBeNull();
  });

  test('one past each boundary is refused with its code', () => {
    expect(publishRefusal({ ...ok, payloadLength: MAX_PAYLOAD_BYTES + 1 }, limits)?.code).toBe(
      ErrorCode.payloadTooLarge,
    );
    expect(publishRefusal({ ...ok, key: 16 }, limits)?.code).toBe(ErrorCode.keyOutOfRange);
    expect(publishRefusal({ ...ok, key: 1000 }, limits)?.code).toBe(ErrorCode.keyOutOfRange);
    expect(publishRefusal({ ...ok, version: 100 }, limits)?.code).toBe(ErrorCode.versionNotIncreasing);
    expect(publishRefusal({ ...ok, version: 99 }, limits)?.code).toBe(ErrorCode.versionNotIncreasing);
    expect(publishRefusal({ ...ok, version: 0 }, { ...limits, highestVersion: 0 })?.code).toBe(
      ErrorCode.versionNotIncreasing,
    );
  });

  test('a change breaking several rules gets the first in the documented order', () => {
    const all = { ...ok, payloadLength: MAX_PAYLOAD_BYTES + 1, key: 99, version: 1 };
    expect(publishRefusal(all, limits)?.code).toBe(ErrorCode.payloadTooLarge);
    expect(publishRefusal({ ...all, payloadLength: 0 }, limits)?.code).toBe(ErrorCode.keyOutOfRange);
  });
});

describe('the digest, as docs/PROTOCOL.md specifies it', () => {
  /** The mix written from the doc alone, in BigInt: u32 words, `*` keeps the low 32 bits. */
  function docMixSteps(key: number, version: number, seed: number): number[] {
    const M = 0xffff_ffffn;
    const mul = (a: bigint, b: bigint) => (a * b) & M;
    const lo = BigInt(version) & M;
    const hi = BigInt(version) >> 32n;
    const steps: bigint[] = [];
    let h = BigInt(seed) ^ BigInt(key);
    steps.push(h);
    h = mul(h ^ (h >> 16n), 0x85eb_ca6bn);
    steps.push(h);
    h = mul(h ^ lo ^ (h >> 13n), 0xc2b2_ae35n);
    steps.push(h);
    h = mul(h ^ hi ^ (h >> 16n), 0x27d4_eb2fn);
    steps.push(h);
    h = h ^ (h >> 15n);
    steps.push(h);
    h = mul(h, 0x1656_67b1n);
    steps.push(h);
    steps.push(h ^ (h >> 16n));
    return steps.map(Number);
  }

  test('the code computes the mix the doc describes', () => {
    let seed = 11;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 2_000; i++) {
      const key = random();
      const version = (random() & 0x1f_ffff) * 2 ** 32 + random(); // up to 2^53 - 1
      for (const s of [DIGEST_SEED_HIGH, DIGEST_SEED_LOW])
        expect(digestMix(key, version, s)).toBe(docMixSteps(key, version, s).at(-1));
    }
    expect(digestMix(0xffff_ffff, Number.MAX_SAFE_INTEGER, DIGEST_SEED_HIGH)).toBe(
      docMixSteps(0xffff_ffff, Number.MAX_SAFE_INTEGER, DIGEST_SEED_HIGH).at(-1),
    );
  });

  test("the doc's worked example matches the code, step by step and digest by digest", () => {
    const doc = readFileSync(new URL('../docs/PROTOCOL.md', import.meta.url), 'utf8');
    const example = doc.slice(doc.indexOf('**Worked example.**'));
    const rows = example.split('\n').filter((line) => /^\| `(h|mix) =/.test(line));
    const documented = rows.map((row) =>
      [...row.matchAll(/`0x([0-9A-F]{8})`/g)].map((m) => Number.parseInt(m[1]!, 16)),
    );
    const columns = [
      [5, 2 ** 32 + 7, DIGEST_SEED_HIGH],
      [5, 2 ** 32 + 7, DIGEST_SEED_LOW],
      [0, 3, DIGEST_SEED_HIGH],
      [0, 3, DIGEST_SEED_LOW],
    ] as const;
    const computed = columns.map(([key, version, s]) => docMixSteps(key, version, s));
    expect(documented).toHaveLength(7);
    documented.forEach((row, step) => expect(row).toEqual(computed.map((column) => column[step])));
    columns.forEach(([key, version, s], i) => expect(digestMix(key, version, s)).toBe(documented[6]![i]));

    const digest = new StateDigest();
    digest.add(5, 2 ** 32 + 7);
    expect(example).toContain(`\`${digest.toString()}\`, 1 live key`);
    digest.add(0, 3);
    expect(example).toContain(`**\`${digest.toString()}\`**, 2 live keys`);
    digest.remove(0, 3);
    expect(example).toContain(`Delete key 0 and it is \`${digest.toString()}\` again`);
  });
});
