import {
  CHANGE_FIXED_LENGTH,
  EVENT_FIXED_LENGTH,
  FRAME_HEADER_LENGTH,
  FrameType,
  MAX_PAYLOAD_BYTES,
  PROTOCOL_VERSION,
  type ErrorCode,
  type Role,
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

export function encodeHello(role: Role, name: string): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 255) throw new RangeError(`client name is ${nameBytes.length} bytes; at most 255`);
  const buf = frame(FrameType.hello, 3 + nameBytes.length);
  buf.writeUInt8(PROTOCOL_VERSION, 5);
  buf.writeUInt8(role, 6);
  buf.writeUInt8(nameBytes.length, 7);
  nameBytes.copy(buf, 8);
  return buf;
}

export function encodeWelcome(headOffset: number): Buffer {
  const buf = frame(FrameType.welcome, 8);
  writeU64(buf, headOffset, 5);
  return buf;
}

function writeChange(buf: Buffer, change: Change, at: number): void {
  buf.writeUInt32BE(change.key, at);
  writeU64(buf, change.version, at + 4);
  buf.writeUInt32BE(change.value, at + 12);
  buf.writeDoubleBE(change.publishedAt, at + 16);
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
 * Wraps a PUBLISH body (as the decoder copied it) in an EVENT with its offset.
 * The broker calls this once per change; every subscriber queue shares the result.
 */
export function encodeEventFromPublishBody(offset: number, publishBody: Uint8Array): Buffer {
  const buf = frame(FrameType.event, 8 + publishBody.length);
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

export function encodeError(code: ErrorCode, message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  const buf = frame(FrameType.error, 2 + text.length);
  buf.writeUInt16BE(code, 5);
  text.copy(buf, 7);
  return buf;
}
