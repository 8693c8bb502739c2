import {
  CHANGE_FIXED_LENGTH,
  EVENT_FIXED_LENGTH,
  FRAME_HEADER_LENGTH,
  ChangeFlag,
  FrameType,
  MAX_ERROR_MESSAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  OFFSET_ERROR_CODES,
  PROTOCOL_VERSION,
  StartKind,
  ErrorCode,
  type Role,
  type SyncKind,
} from './constants.js';
import type { Change } from './frames.js';

// Split into two u32 words instead of BigInt: no allocation on the hot path,
// exact for every value a JavaScript number holds exactly (< 2^53).
function writeU64(buf: Buffer, value: number, at: number): void {
  buf.writeUInt32BE(Math.floor(value / 0x1_0000_0000), at);
  buf.writeUInt32BE(value >>> 0, at + 4);
}

function frame(type: FrameType, bodyLength: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + bodyLength);
  buf.writeUInt32BE(1 + bodyLength, 0);
  buf.writeUInt8(type, 4);
  return buf;
}

export interface HelloOptions {
  role: Role;
  name: string;
  /** The per-run access token (raw bytes, at most 255). */
  token: Uint8Array;
  start?: StartKind;
  startOffset?: number;
}

export function encodeHello({ role, name, token, start = StartKind.latest, startOffset = 0 }: HelloOptions): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 255) throw new RangeError(`client name is ${nameBytes.length} bytes; at most 255`);
  if (token.length > 255) throw new RangeError(`token is ${token.length} bytes; at most 255`);
  const buf = frame(FrameType.hello, 3 + nameBytes.length + 9 + 1 + token.length);
  buf.writeUInt8(PROTOCOL_VERSION, 5);
  buf.writeUInt8(role, 6);
  buf.writeUInt8(nameBytes.length, 7);
  nameBytes.copy(buf, 8);
  let at = 8 + nameBytes.length;
  buf.writeUInt8(start, at);
  writeU64(buf, startOffset, at + 1);
  at += 9;
  buf.writeUInt8(token.length, at);
  buf.set(token, at + 1);
  return buf;
}

/** WELCOME, ACK and LAG: a body of two u64s. */
function twoU64(type: FrameType, first: number, second: number): Buffer {
  const buf = frame(type, 16);
  writeU64(buf, first, 5);
  writeU64(buf, second, 13);
  return buf;
}

export function encodeWelcome(headOffset: number, epoch: number): Buffer {
  return twoU64(FrameType.welcome, headOffset, epoch);
}

export function encodeAck(version: number, headOffset: number): Buffer {
  return twoU64(FrameType.ack, version, headOffset);
}

function writeChange(buf: Buffer, change: Change, at: number): void {
  buf.writeUInt32BE(change.key, at);
  writeU64(buf, change.version, at + 4);
  buf.writeUInt32BE(change.value, at + 12);
  buf.writeUInt8(change.deleted ? ChangeFlag.delete : 0, at + 16);
  buf.writeDoubleBE(change.publishedAt, at + 17);
  // Padding stands in for a real config value's size; its content is irrelevant,
  // but zero it so no stale heap bytes leave the process.
  buf.fill(0, at + CHANGE_FIXED_LENGTH, at + CHANGE_FIXED_LENGTH + change.payloadLength);
}

export function encodePublish(change: Change): Buffer {
  if (change.payloadLength > MAX_PAYLOAD_BYTES) {
    throw new RangeError(`payload is ${change.payloadLength} bytes; at most ${MAX_PAYLOAD_BYTES}`);
  }
  const buf = frame(FrameType.publish, CHANGE_FIXED_LENGTH + change.payloadLength);
  writeChange(buf, change, FRAME_HEADER_LENGTH);
  return buf;
}

/**
 * Wraps a PUBLISH body (as the decoder copied it) in an EVENT - or, for a
 * snapshot or delta, a STATE - with its offset. The broker calls this once per
 * change; every subscriber queue shares the result.
 */
export function encodeEventFromPublishBody(
  offset: number,
  publishBody: Uint8Array,
  type: typeof FrameType.event | typeof FrameType.state = FrameType.event,
): Buffer {
  const buf = frame(type, 8 + publishBody.length);
  writeU64(buf, offset, FRAME_HEADER_LENGTH);
  buf.set(publishBody, FRAME_HEADER_LENGTH + 8);
  return buf;
}

export function encodeEvent(offset: number, change: Change): Buffer {
  const buf = frame(FrameType.event, EVENT_FIXED_LENGTH + change.payloadLength);
  writeU64(buf, offset, FRAME_HEADER_LENGTH);
  writeChange(buf, change, FRAME_HEADER_LENGTH + 8);
  return buf;
}

/** `text` cut to at most `max` bytes without splitting a UTF-8 character. */
function truncateUtf8(text: Buffer, max: number): Buffer {
  if (text.length <= max) return text;
  let cut = max;
  // A continuation byte (10xxxxxx) at the cut means the cut falls inside a character.
  while (cut > 0 && (text[cut]! & 0xc0) === 0x80) cut -= 1;
  return text.subarray(0, cut);
}

/** The message is cut to MAX_ERROR_MESSAGE_BYTES: an ERROR quoting client input must still fit the frame cap. */
export function encodeError(code: ErrorCode, message: string): Buffer {
  if (OFFSET_ERROR_CODES.has(code)) throw new RangeError(`error code ${code} carries an offset: use encodeOffsetError`);
  const text = truncateUtf8(Buffer.from(message, 'utf8'), MAX_ERROR_MESSAGE_BYTES);
  const buf = frame(FrameType.error, 2 + text.length);
  buf.writeUInt16BE(code, 5);
  text.copy(buf, 7);
  return buf;
}

/** tooOld (offset = the oldest retained) and inFuture (offset = the head): code, u64 offset, message. */
export function encodeOffsetError(
  code: typeof ErrorCode.tooOld | typeof ErrorCode.inFuture,
  offset: number,
  message: string,
): Buffer {
  const text = truncateUtf8(Buffer.from(message, 'utf8'), MAX_ERROR_MESSAGE_BYTES);
  const buf = frame(FrameType.error, 2 + 8 + text.length);
  buf.writeUInt16BE(code, 5);
  writeU64(buf, offset, 7);
  text.copy(buf, 15);
  return buf;
}

export function encodeSyncEnd(kind: SyncKind, offset: number): Buffer {
  const buf = frame(FrameType.syncEnd, 9);
  buf.writeUInt8(kind, 5);
  writeU64(buf, offset, 6);
  return buf;
}

export function encodeLag(from: number, to: number): Buffer {
  return twoU64(FrameType.lag, from, to);
}

export function encodeProgress(headOffset: number): Buffer {
  const buf = frame(FrameType.progress, 8);
  writeU64(buf, headOffset, 5);
  return buf;
}

export function encodeResume(fromOffset: number): Buffer {
  const buf = frame(FrameType.resume, 8);
  writeU64(buf, fromOffset, 5);
  return buf;
}

export function encodeDigestRequest(): Buffer {
  return frame(FrameType.digestRequest, 0);
}

/** `digest` is the 16-hex-digit form from StateDigest.toString(). */
export function encodeDigest(offset: number, digest: string, liveKeys: number): Buffer {
  if (!/^[0-9a-f]{16}$/.test(digest)) throw new RangeError(`digest must be 16 hex digits, got ${digest}`);
  const buf = frame(FrameType.digest, 20);
  writeU64(buf, offset, 5);
  buf.writeUInt32BE(Number.parseInt(digest.slice(0, 8), 16), 13);
  buf.writeUInt32BE(Number.parseInt(digest.slice(8), 16), 17);
  buf.writeUInt32BE(liveKeys, 21);
  return buf;
}
