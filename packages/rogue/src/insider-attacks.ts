import {
  encodeHello,
  encodePublish,
  FRAME_HEADER_LENGTH,
  MAX_PAYLOAD_BYTES,
  Role,
  type Change,
} from '@state-divergence/protocol';
import type { Attack } from './attack.js';
import type { Random } from './hostile-bytes.js';

/**
 * The insider: a client holding the run's valid token whose frames are well
 * formed but mean something the broker must refuse. Each attack breaks exactly
 * one rule of docs/PROTOCOL.md, so the broker's answer names that rule and no other.
 *
 * The run's publisher holds the only publisher slot, so the insider sends its
 * PUBLISH frames on subscriber streams: the broker judges what a PUBLISH means
 * before who sent it, so these meet the same rules as the publisher's stream.
 */

/** Above the largest --keys a run accepts: outside the keyspace of every run. */
const FIRST_KEY_OUTSIDE_ANY_RUN = 1_000_000;

const insiderHello = (token: Buffer, i: number): Buffer =>
  encodeHello({ role: Role.subscriber, name: `insider-${i}`, token });

/** A change that breaks no rule by itself: the largest version, key 0 (in every keyspace), a small payload. */
const valid = (random: Random): Change => ({
  key: 0,
  version: Number.MAX_SAFE_INTEGER,
  value: 1 + (random() % 1000),
  deleted: false,
  publishedAt: 0,
  payloadLength: 8,
});

const repeat = (n: number, make: () => Buffer): Buffer[] => Array.from({ length: n }, make);

/** One byte more than a PUBLISH may carry: the encoder refuses to build it, so its length field is rewritten. */
function oversizedPublish(random: Random): Buffer {
  const largest = encodePublish({ ...valid(random), payloadLength: MAX_PAYLOAD_BYTES });
  const frame = Buffer.concat([largest, Buffer.alloc(1)]);
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}

/** Byte strings that are not UTF-8: a stray continuation, a cut sequence, an encoded surrogate, an overlong '/'. */
const NOT_UTF8 = [[0x80], [0xff, 0xfe], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf]] as const;

function helloWithNameBytes(token: Buffer, random: Random): Buffer {
  const name = NOT_UTF8[random() % NOT_UTF8.length]!;
  const hello = encodeHello({ role: Role.subscriber, name: 'x'.repeat(name.length), token });
  // HELLO body: version, role, name length, then the name (docs/PROTOCOL.md).
  Buffer.from(name).copy(hello, FRAME_HEADER_LENGTH + 3);
  return hello;
}

export const INSIDER_ATTACKS: Attack[] = [
  {
    name: 'insider: payload over the cap',
    // One frame: 65 KB each, and the broker stops reading at the first.
    hello: insiderHello,
    body: (random) => [oversizedPublish(random)],
  },
  {
    name: 'insider: key out of range',
    hello: insiderHello,
    body: (random, n) =>
      repeat(n, () => encodePublish({ ...valid(random), key: FIRST_KEY_OUTSIDE_ANY_RUN + (random() % 0xff00_0000) })),
  },
  {
    name: 'insider: version going backwards',
    // 0 is never above the highest version accepted, whenever this runs.
    hello: insiderHello,
    body: (random, n) => repeat(n, () => encodePublish({ ...valid(random), version: 0 })),
  },
  {
    name: 'insider: delete carrying a value',
    hello: insiderHello,
    body: (random, n) => repeat(n, () => encodePublish({ ...valid(random), deleted: true })),
  },
  {
    name: 'insider: name not UTF-8',
    hello: (token, _i, random) => helloWithNameBytes(token, random),
    body: () => [],
  },
  {
    name: 'insider: name already in use',
    // A first connection holds the name; the attack's HELLO claims it again.
    hold: (token, i) => insiderHello(token, i),
    hello: insiderHello,
    body: () => [],
  },
];
