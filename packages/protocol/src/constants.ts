/**
 * Wire constants: the single table both the encoder and the decoder read.
 * docs/PROTOCOL.md describes the same layout byte by byte; change both together.
 */

export const PROTOCOL_VERSION = 1;

/** Every frame starts with a u32 length (of type + body) and a u8 type. */
export const FRAME_HEADER_LENGTH = 5;

/**
 * Upper bound on a frame's length field. The largest legitimate frame is an
 * EVENT with the largest allowed --payload; anything longer is rejected as soon
 * as the 4-byte length is known, before a byte of the body is buffered.
 */
export const MAX_PAYLOAD_BYTES = 65_536;
export const MAX_FRAME_LENGTH = 1 + 8 + 4 + 8 + 4 + 8 + MAX_PAYLOAD_BYTES;

export const FrameType = {
  hello: 0x01,
  welcome: 0x02,
  publish: 0x03,
  event: 0x04,
  error: 0x05,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const Role = {
  publisher: 1,
  subscriber: 2,
} as const;
export type Role = (typeof Role)[keyof typeof Role];

/** Codes carried by ERROR frames and by FrameDecodeError. Stable: clients may switch on them. */
export const ErrorCode = {
  frameTooLarge: 1,
  unknownFrameType: 2,
  malformedFrame: 3,
  unexpectedFrame: 4,
  unsupportedVersion: 5,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Fixed part of a PUBLISH body: key u32, version u64, value u32, publishedAt f64. */
export const CHANGE_FIXED_LENGTH = 4 + 8 + 4 + 8;
/** Fixed part of an EVENT body: offset u64 followed by a PUBLISH body. */
export const EVENT_FIXED_LENGTH = 8 + CHANGE_FIXED_LENGTH;
/** Largest safe u64 we carry: JavaScript numbers are exact up to 2^53 - 1. */
export const MAX_U64_HIGH_WORD = 0x1f_ffff;
