import {
  encodeDigest,
  encodeDigestRequest,
  encodeError,
  encodeEvent,
  encodeHello,
  encodeLag,
  encodeProgress,
  encodePublish,
  encodeResume,
  encodeSyncEnd,
  encodeWelcome,
  ErrorCode,
  Role,
  SyncKind,
  type Change,
} from '@state-divergence/protocol';

export type Random = () => number; // uniform u32

const pick = <T>(random: Random, items: readonly T[]): T => items[random() % items.length]!;

function change(random: Random): Change {
  return {
    key: random(),
    version: random(),
    value: random(),
    deleted: random() % 2 === 0,
    publishedAt: random(),
    payloadLength: random() % 80,
  };
}

/** Well-formed frames of every type, as raw material for mutation. */
function template(random: Random): Buffer {
  const make = pick(random, [
    () => encodeEvent(random(), change(random)),
    () => encodePublish(change(random)),
    () => encodeHello({ role: Role.subscriber, name: `x${random()}`, token: Buffer.alloc(random() % 40) }),
    () => encodeWelcome(random(), random()),
    () => encodeSyncEnd(SyncKind.delta, random()),
    () => encodeLag(random(), random()),
    () => encodeProgress(random()),
    () => encodeResume(random()),
    () => encodeDigestRequest(),
    () => encodeDigest(random(), 'deadbeefdeadbeef', random()),
    () => encodeError(ErrorCode.malformedFrame, 'rogue'),
  ]);
  return Buffer.from(make());
}

/**
 * One hostile frame: a valid frame of a random type, then (usually) damaged:
 * bytes flipped, truncated, a lying length, an unknown type - or pure noise.
 */
export function hostileFrame(random: Random): Buffer {
  const frame = template(random);
  switch (random() % 6) {
    case 0: // flip a few bytes anywhere, the header included
      for (let i = 0; i < 1 + (random() % 3); i++) frame[random() % frame.length] = random() & 0xff;
      return frame;
    case 1: // truncate: the length field now promises more than follows
      return frame.subarray(0, Math.max(1, random() % frame.length));
    case 2: // a lying length field, sometimes far beyond the cap
      frame.writeUInt32BE(random() % 2 === 0 ? random() : random() % 64, 0);
      return frame;
    case 3: // an unknown frame type
      frame.writeUInt8(0x0d + (random() % 0xf0), 4);
      return frame;
    case 4: // noise
      return Buffer.from(Array.from({ length: 1 + (random() % 64) }, () => random() & 0xff));
    default: // left intact: legal bytes in the wrong place are an attack too
      return frame;
  }
}
