/**
 * Property-based fuzzing of the frame decoder (fast-check): whatever bytes
 * arrive, however they are chunked, the decoder yields frames or raises one
 * coded FrameDecodeError - never another exception, never a hang - and valid
 * frame streams survive any chunking unchanged.
 */
import fc from 'fast-check';
import { encodeEvent, encodeHello, encodePublish, encodeResume, ErrorCode, FrameDecodeError, FrameDecoder, Role, type Change, type Frame } from '@state-divergence/protocol';

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

const changeArb: fc.Arbitrary<Change> = fc.record({
  key: fc.nat({ max: 0xffff_ffff }),
  version: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  value: fc.nat({ max: 0xffff_ffff }),
  deleted: fc.boolean(),
  publishedAt: fc.double({ noNaN: true }),
  payloadLength: fc.nat({ max: 300 }),
});

const frameArb = fc.oneof(
  changeArb.map((c) => encodePublish(c)),
  fc.tuple(fc.nat({ max: Number.MAX_SAFE_INTEGER }), changeArb).map(([o, c]) => encodeEvent(o, c)),
  fc.tuple(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 64 })).map(([name, token]) => encodeHello({ role: Role.subscriber, name, token })),
  fc.nat({ max: Number.MAX_SAFE_INTEGER }).map((o) => encodeResume(o)),
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
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 16 }), (frames, cuts) => {
        const bytes = Buffer.concat(frames);
        const whole = decode([bytes]);
        expect(whole.error).toBeNull();
        expect(whole.frames).toHaveLength(frames.length);
        expect(decode(chunk(bytes, cuts))).toEqual(whole);
      }),
      { numRuns: 1_000 },
    );
  });

  test('a valid stream with one byte mutated still ends in frames or one coded error', () => {
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 6 }), fc.nat(), fc.nat({ max: 255 }), (frames, at, byte) => {
        const bytes = Buffer.concat(frames);
        bytes[at % bytes.length] = byte;
        const { error } = decode([bytes]);
        if (error) expect(CODES).toContain(error.code);
      }),
      { numRuns: 3_000 },
    );
  });
});
