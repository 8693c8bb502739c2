/**
 * Property-based fuzzing of the frame decoder (fast-check): whatever bytes
 * arrive, however they are chunked, the decoder yields frames or raises one
 * coded FrameDecodeError - never another exception, never a hang - and valid
 * frame streams survive any chunking unchanged. Then the semantic checks: the
 * decoder plus the broker's PUBLISH rules agree with an oracle written from
 * docs/PROTOCOL.md, whatever passes them fits the cap once relayed, and with
 * them the broker's table and every replica agree on the digest.
 */
import fc from 'fast-check';
import {
  encodeAck,
  encodeOffsetError,
  encodeWelcome,
  encodeEvent,
  encodeEventFromPublishBody,
  encodeHello,
  encodePublish,
  encodeResume,
  ErrorCode,
  FrameDecodeError,
  FrameDecoder,
  MAX_FRAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  publishRefusal,
  Role,
  StartKind,
  StateDigest,
  type Change,
  type Frame,
} from '@state-divergence/protocol';

const CODES = Object.values(ErrorCode) as number[];

/** Splits bytes at the given cut points (taken modulo the length). */
function chunk(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...points, bytes.length]) {
    chunks.push(bytes.slice(from, to));
    from = to;
  }
  return chunks;
}

function decode(chunks: Uint8Array[]): { frames: Frame[]; error: FrameDecodeError | null } {
  const decoder = new FrameDecoder();
  const frames: Frame[] = [];
  try {
    for (const c of chunks) {
      decoder.push(c);
      for (let f = decoder.next(); f !== null; f = decoder.next()) frames.push(f);
    }
    return { frames, error: null };
  } catch (error) {
    if (!(error instanceof FrameDecodeError)) throw error;
    return { frames, error };
  }
}

// A delete carries value 0: anything else is malformed (docs/PROTOCOL.md, PUBLISH rule 2).
const changeArb: fc.Arbitrary<Change> = fc
  .record({
    key: fc.nat({ max: 0xffff_ffff }),
    version: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
    value: fc.nat({ max: 0xffff_ffff }),
    deleted: fc.boolean(),
    publishedAt: fc.double({ noNaN: true }),
    payloadLength: fc.nat({ max: 300 }),
  })
  .map((c) => (c.deleted ? { ...c, value: 0 } : c));

const frameArb = fc.oneof(
  changeArb.map((c) => encodePublish(c)),
  fc.tuple(fc.nat({ max: Number.MAX_SAFE_INTEGER }), changeArb).map(([o, c]) => encodeEvent(o, c)),
  fc
    .tuple(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 64 }))
    .map(([name, token]) => encodeHello({ role: Role.subscriber, name, token })),
  fc.nat({ max: Number.MAX_SAFE_INTEGER }).map((o) => encodeResume(o)),
  // Protocol 2's frames: WELCOME with the epoch, ACK, the ERRORs that carry an offset, start kind earliest.
  fc
    .tuple(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: Number.MAX_SAFE_INTEGER }))
    .map(([h, e]) => encodeWelcome(h, e)),
  fc
    .tuple(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: Number.MAX_SAFE_INTEGER }))
    .map(([v, h]) => encodeAck(v, h)),
  fc
    .tuple(
      fc.constantFrom(ErrorCode.tooOld, ErrorCode.inFuture),
      fc.nat({ max: Number.MAX_SAFE_INTEGER }),
      fc.string({ maxLength: 40 }),
    )
    .map(([code, o, m]) => encodeOffsetError(code, o, m)),
  fc
    .string({ maxLength: 40 })
    .map((name) => encodeHello({ role: Role.subscriber, name, token: Buffer.alloc(32), start: StartKind.earliest })),
);

describe('decoder fuzz (property-based)', () => {
  test('arbitrary bytes, arbitrarily chunked: frames or one coded error, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        const { error } = decode(chunk(bytes, cuts));
        if (error) expect(CODES).toContain(error.code);
      }),
      { numRuns: 5_000 },
    );
  });

  test('valid frame streams decode the same however they are chunked', () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 16 }),
        (frames, cuts) => {
          const bytes = Buffer.concat(frames);
          const whole = decode([bytes]);
          expect(whole.error).toBeNull();
          expect(whole.frames).toHaveLength(frames.length);
          expect(decode(chunk(bytes, cuts))).toEqual(whole);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  test('a valid stream with one byte mutated still ends in frames or one coded error', () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.nat({ max: 255 }),
        (frames, at, byte) => {
          const bytes = Buffer.concat(frames);
          bytes[at % bytes.length] = byte;
          const { error } = decode([bytes]);
          if (error) expect(CODES).toContain(error.code);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

/** A PUBLISH frame as a hostile client could send it: any field, any payload length (the encoder would refuse some). */
function rawPublish(change: Change): Buffer {
  const frame = encodePublish({ ...change, payloadLength: 0 });
  const bytes = Buffer.concat([frame, Buffer.alloc(change.payloadLength)]);
  bytes.writeUInt32BE(bytes.length - 4, 0);
  return bytes;
}

/** The documented rules, in the documented order, written independently of the code. */
function oracle(change: Change, keys: number, highestVersion: number): number | null {
  if (1 + 25 + change.payloadLength > 65_570) return ErrorCode.frameTooLarge;
  if (change.deleted && change.value !== 0) return ErrorCode.malformedFrame;
  if (change.payloadLength > 65_536) return ErrorCode.payloadTooLarge;
  if (change.key >= keys) return ErrorCode.keyOutOfRange;
  if (change.version <= highestVersion) return ErrorCode.versionNotIncreasing;
  return null;
}

/** What the broker does with one PUBLISH: decode it, then judge it. */
function judge(bytes: Uint8Array, keys: number, highestVersion: number): { code: number | null; frame: Frame | null } {
  const { frames, error } = decode([bytes]);
  if (error) return { code: error.code, frame: null };
  const frame = frames[0]!;
  if (frame.type !== 'publish') throw new Error(`decoded ${frame.type} from a PUBLISH`);
  return { code: publishRefusal(frame.change, { keys, highestVersion })?.code ?? null, frame };
}

const anyChangeArb: fc.Arbitrary<Change> = fc.record({
  key: fc.oneof(fc.nat({ max: 40 }), fc.nat({ max: 0xffff_ffff })),
  version: fc.oneof(fc.nat({ max: 200 }), fc.nat({ max: Number.MAX_SAFE_INTEGER })),
  value: fc.oneof(fc.constant(0), fc.nat({ max: 0xffff_ffff })),
  deleted: fc.boolean(),
  publishedAt: fc.double({ noNaN: true }),
  // Mostly small; sometimes right around the payload limit and the frame cap.
  payloadLength: fc.oneof(fc.nat({ max: 64 }), fc.integer({ min: MAX_PAYLOAD_BYTES - 4, max: MAX_PAYLOAD_BYTES + 12 })),
});

describe('semantic checks (property-based)', () => {
  test('a HELLO decodes exactly when its name bytes are valid UTF-8, and then to those bytes', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 255 }),
          fc.string({ unit: 'binary', maxLength: 60 }).map((t) => new Uint8Array(Buffer.from(t).subarray(0, 255))),
        ),
        (name) => {
          const hello = encodeHello({
            role: Role.subscriber,
            name: 'x'.repeat(name.length),
            token: new Uint8Array(32),
          });
          hello.set(name, 5 + 3);
          let valid = true;
          try {
            strict.decode(name);
          } catch {
            valid = false;
          }
          const { frames, error } = decode([hello]);
          if (valid)
            expect(frames[0]?.type === 'hello' && Buffer.from(frames[0].name).equals(Buffer.from(name))).toBe(true);
          else expect(error?.code).toBe(ErrorCode.malformedFrame);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  test('decoder plus broker rules refuse exactly what the documented rules refuse, with the first rule broken', () => {
    fc.assert(
      fc.property(
        anyChangeArb,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.nat({ max: 300 }),
        (change, keys, highestVersion) => {
          expect(judge(rawPublish(change), keys, highestVersion).code).toBe(oracle(change, keys, highestVersion));
        },
      ),
      { numRuns: 1_500 },
    );
  });

  test('whatever the broker accepts fits the cap once relayed as an EVENT, and decodes to the same change', () => {
    fc.assert(
      fc.property(anyChangeArb, fc.nat({ max: Number.MAX_SAFE_INTEGER }), (change, offset) => {
        const { code, frame } = judge(rawPublish(change), 2 ** 32, -1);
        if (code !== null || frame?.type !== 'publish') return;
        const event = encodeEventFromPublishBody(offset, frame.body);
        expect(event.length - 4).toBeLessThanOrEqual(MAX_FRAME_LENGTH);
        expect(decode([event]).frames).toEqual([{ type: 'event', offset, change: frame.change }]);
      }),
      { numRuns: 1_500 },
    );
  });

  /** Replays PUBLISHes through the broker's rules; returns the digests of its table and of a replica. */
  function replay(changes: Change[], enforceVersions: boolean): { broker: string; replica: string } {
    const table = new Map<number, Change>(); // the broker's compacted table: the last write to arrive wins
    const replica = new Map<number, Change>(); // a subscriber: the highest version wins
    let highestVersion = 0;
    for (const change of changes) {
      const refusal = publishRefusal(change, { keys: 8, highestVersion: enforceVersions ? highestVersion : -1 });
      if (refusal !== null) continue;
      highestVersion = Math.max(highestVersion, change.version);
      table.set(change.key, change);
      if ((replica.get(change.key)?.version ?? -1) < change.version) replica.set(change.key, change);
    }
    const digestOf = (state: Map<number, Change>) => {
      const digest = new StateDigest();
      for (const c of state.values()) if (!c.deleted) digest.add(c.key, c.version);
      return digest.toString();
    };
    return { broker: digestOf(table), replica: digestOf(replica) };
  }

  const sequenceArb = fc.array(
    fc.record({
      key: fc.nat({ max: 9 }),
      version: fc.nat({ max: 40 }),
      value: fc.constant(0),
      deleted: fc.boolean(),
      publishedAt: fc.constant(0),
      payloadLength: fc.constant(0),
    }),
    { maxLength: 40 },
  );

  test("with rule 5 (versions only increase) the broker's table and every replica agree on the digest", () => {
    fc.assert(
      fc.property(sequenceArb, (changes) => {
        const { broker, replica } = replay(changes, true);
        expect(broker).toBe(replica);
      }),
      { numRuns: 3_000 },
    );
  });

  test('without rule 5 they can disagree with nothing dropped: the property above can fail', () => {
    const result = fc.check(
      fc.property(sequenceArb, (changes) => {
        const { broker, replica } = replay(changes, false);
        return broker === replica;
      }),
      { numRuns: 3_000, seed: 42 },
    );
    expect(result.failed).toBe(true);
  });
});
