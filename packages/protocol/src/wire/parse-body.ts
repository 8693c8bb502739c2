import { isUtf8 } from 'node:buffer';
import {
  CHANGE_FIXED_LENGTH,
  ErrorCode,
  EVENT_FIXED_LENGTH,
  FrameType,
  OFFSET_ERROR_CODES,
  MAX_U64_HIGH_WORD,
  Role,
  StartKind,
  SyncKind,
  ChangeFlag,
} from './constants.js';
import { FrameDecodeError } from './decode-error.js';
import type { Change, Frame } from './frames.js';

/**
 * Frame bodies, one layout per type (docs/PROTOCOL.md has the same tables).
 * Everything here needs only the frame itself: shape rules, and values no
 * frame may carry whoever sends it (a delete with a value, a name that is not
 * UTF-8). Rules that need the run's state live in publish-rules.ts.
 */

const ROLES = new Set<number>(Object.values(Role));
const START_KINDS = new Set<number>(Object.values(StartKind));
const SYNC_KINDS = new Set<number>(Object.values(SyncKind));
const KNOWN_FLAGS = Object.values(ChangeFlag).reduce((a, b) => a | b, 0);

function readU64(buf: Buffer, at: number, field: string): number {
  const high = buf.readUInt32BE(at);
  if (high > MAX_U64_HIGH_WORD) {
    throw new FrameDecodeError(ErrorCode.malformedFrame, `${field} 0x${high.toString(16)}_…  exceeds 2^53 - 1`);
  }
  return high * 0x1_0000_0000 + buf.readUInt32BE(at + 4);
}

function readChange(body: Buffer, at: number): Change {
  const flags = body.readUInt8(at + 16);
  if ((flags & ~KNOWN_FLAGS) !== 0)
    throw new FrameDecodeError(ErrorCode.malformedFrame, `unknown change flags 0x${flags.toString(16)}`);
  const value = body.readUInt32BE(at + 12);
  const deleted = (flags & ChangeFlag.delete) !== 0;
  // A delete carries no value; one that does is ambiguous (which one would a replica keep?).
  if (deleted && value !== 0)
    throw new FrameDecodeError(ErrorCode.malformedFrame, `a delete must carry value 0, got ${value}`);
  return {
    key: body.readUInt32BE(at),
    version: readU64(body, at + 4, 'version'),
    value,
    deleted,
    publishedAt: body.readDoubleBE(at + 17),
    payloadLength: body.length - at - CHANGE_FIXED_LENGTH,
  };
}

/**
 * The version of a PUBLISH body (the frame without its header), read without parsing the rest:
 * for the broker's durable log, which stores bodies verbatim and at recovery needs only the
 * highest version it holds (readChange above reads the same field).
 */
export function publishBodyVersion(body: Buffer): number {
  requireLength('publish', body, CHANGE_FIXED_LENGTH);
  return readU64(body, 4, 'version');
}

function hex32(value: number): string {
  return value.toString(16).padStart(8, '0');
}

function requireLength(type: string, body: Buffer, min: number, exact = false): void {
  if (exact ? body.length !== min : body.length < min) {
    throw new FrameDecodeError(
      ErrorCode.malformedFrame,
      `${type} frame body is ${body.length} bytes; expected ${exact ? 'exactly' : 'at least'} ${min}`,
    );
  }
}

/**
 * HELLO's name must be valid UTF-8: decoded leniently, two different byte
 * strings could become the same name (both turn into U+FFFD) and pass for one client.
 */
function readName(body: Buffer, at: number, length: number): string {
  const bytes = body.subarray(at, at + length);
  if (!isUtf8(bytes))
    throw new FrameDecodeError(
      ErrorCode.malformedFrame,
      `hello name is not valid UTF-8 (bytes ${bytes.toString('hex')})`,
    );
  return bytes.toString('utf8');
}

/**
 * HELLO: version, role, name (UTF-8), start kind and offset, token; every field checked.
 * A start offset means something only with start kind `offset`, and a publisher starts
 * nowhere: anything else would be a HELLO whose meaning a reader has to guess.
 */
function parseHello(body: Buffer): Frame {
  requireLength('hello', body, 3);
  const role = body.readUInt8(1);
  if (!ROLES.has(role)) throw new FrameDecodeError(ErrorCode.malformedFrame, `hello has unknown role ${role}`);
  const nameLength = body.readUInt8(2);
  requireLength('hello', body, 3 + nameLength + 10);
  const start = body.readUInt8(3 + nameLength);
  if (!START_KINDS.has(start))
    throw new FrameDecodeError(ErrorCode.malformedFrame, `hello has unknown start kind ${start}`);
  const tokenAt = 3 + nameLength + 9;
  const tokenLength = body.readUInt8(tokenAt);
  requireLength('hello', body, tokenAt + 1 + tokenLength, true);
  const startOffset = readU64(body, 4 + nameLength, 'start offset');
  if (role === Role.publisher && start !== StartKind.latest) {
    throw new FrameDecodeError(
      ErrorCode.malformedFrame,
      `a publisher's hello must have start kind 0 (latest), got ${start}`,
    );
  }
  if (start !== StartKind.offset && startOffset !== 0) {
    throw new FrameDecodeError(
      ErrorCode.malformedFrame,
      `hello has start offset ${startOffset} with start kind ${start}; only start kind 2 (offset) carries one`,
    );
  }
  return {
    type: 'hello',
    protocolVersion: body.readUInt8(0),
    role: role as Role,
    name: readName(body, 3, nameLength),
    start: start as StartKind,
    startOffset,
    token: Uint8Array.prototype.slice.call(body, tokenAt + 1, tokenAt + 1 + tokenLength),
  };
}

/** Parses one frame body. `body` may be a view into a receive chunk: nothing returned may alias it. */
export function parseBody(type: number, body: Buffer): Frame {
  switch (type) {
    case FrameType.hello:
      return parseHello(body);
    case FrameType.welcome:
      requireLength('welcome', body, 16, true);
      return { type: 'welcome', headOffset: readU64(body, 0, 'head offset'), epoch: readU64(body, 8, 'epoch') };
    case FrameType.ack:
      requireLength('ack', body, 16, true);
      return { type: 'ack', version: readU64(body, 0, 'version'), headOffset: readU64(body, 8, 'head offset') };
    case FrameType.publish:
      requireLength('publish', body, CHANGE_FIXED_LENGTH);
      return { type: 'publish', change: readChange(body, 0), body: Buffer.from(body) };
    case FrameType.event:
      requireLength('event', body, EVENT_FIXED_LENGTH);
      return { type: 'event', offset: readU64(body, 0, 'offset'), change: readChange(body, 8) };
    case FrameType.state:
      requireLength('state', body, EVENT_FIXED_LENGTH);
      return { type: 'state', offset: readU64(body, 0, 'offset'), change: readChange(body, 8) };
    case FrameType.syncEnd: {
      requireLength('syncEnd', body, 9, true);
      const kind = body.readUInt8(0);
      if (!SYNC_KINDS.has(kind))
        throw new FrameDecodeError(ErrorCode.malformedFrame, `syncEnd has unknown kind ${kind}`);
      return { type: 'syncEnd', kind: kind as SyncKind, offset: readU64(body, 1, 'offset') };
    }
    case FrameType.lag:
      requireLength('lag', body, 16, true);
      return { type: 'lag', from: readU64(body, 0, 'from'), to: readU64(body, 8, 'to') };
    case FrameType.progress:
      requireLength('progress', body, 8, true);
      return { type: 'progress', headOffset: readU64(body, 0, 'head offset') };
    case FrameType.resume:
      requireLength('resume', body, 8, true);
      return { type: 'resume', fromOffset: readU64(body, 0, 'from offset') };
    case FrameType.digestRequest:
      requireLength('digestRequest', body, 0, true);
      return { type: 'digestRequest' };
    case FrameType.digest:
      requireLength('digest', body, 20, true);
      return {
        type: 'digest',
        offset: readU64(body, 0, 'offset'),
        digest: hex32(body.readUInt32BE(8)) + hex32(body.readUInt32BE(12)),
        liveKeys: body.readUInt32BE(16),
      };
    case FrameType.error: {
      requireLength('error', body, 2);
      const code = body.readUInt16BE(0) as ErrorCode;
      if (!OFFSET_ERROR_CODES.has(code)) return { type: 'error', code, message: body.toString('utf8', 2) };
      requireLength('error', body, 10);
      return { type: 'error', code, offset: readU64(body, 2, 'offset'), message: body.toString('utf8', 10) };
    }
    default:
      // Unreachable: the type is checked against FrameType as soon as the header arrives.
      throw new FrameDecodeError(ErrorCode.unknownFrameType, `unknown frame type 0x${type.toString(16)}`);
  }
}
