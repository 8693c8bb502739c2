import {
  CHANGE_FIXED_LENGTH,
  ErrorCode,
  EVENT_FIXED_LENGTH,
  FRAME_HEADER_LENGTH,
  FrameType,
  MAX_FRAME_LENGTH,
  MAX_U64_HIGH_WORD,
  Role,
  StartKind,
  SyncKind,
  ChangeFlag,
} from './constants.js';
import type { Change, Frame } from './frames.js';

const FRAME_TYPE_NAMES = new Map<number, string>(Object.entries(FrameType).map(([name, type]) => [type, name]));
const ROLES = new Set<number>(Object.values(Role));
const START_KINDS = new Set<number>(Object.values(StartKind));
const SYNC_KINDS = new Set<number>(Object.values(SyncKind));
const KNOWN_FLAGS = Object.values(ChangeFlag).reduce((a, b) => a | b, 0);

/** The one error the decoder raises. After it, the decoder stays failed: it never resyncs. */
export class FrameDecodeError extends Error {
  override readonly name = 'FrameDecodeError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function readU64(buf: Buffer, at: number, field: string): number {
  const high = buf.readUInt32BE(at);
  if (high > MAX_U64_HIGH_WORD) {
    throw new FrameDecodeError(ErrorCode.malformedFrame, `${field} 0x${high.toString(16)}_…  exceeds 2^53 - 1`);
  }
  return high * 0x1_0000_0000 + buf.readUInt32BE(at + 4);
}

function readChange(body: Buffer, at: number): Change {
  const flags = body.readUInt8(at + 16);
  if ((flags & ~KNOWN_FLAGS) !== 0) throw new FrameDecodeError(ErrorCode.malformedFrame, `unknown change flags 0x${flags.toString(16)}`);
  return {
    key: body.readUInt32BE(at),
    version: readU64(body, at + 4, 'version'),
    value: body.readUInt32BE(at + 12),
    deleted: (flags & ChangeFlag.delete) !== 0,
    publishedAt: body.readDoubleBE(at + 17),
    payloadLength: body.length - at - CHANGE_FIXED_LENGTH,
  };
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

/** Parses one frame body. `body` may be a view into a receive chunk: nothing returned may alias it. */
function parseBody(type: number, body: Buffer): Frame {
  switch (type) {
    case FrameType.hello: {
      requireLength('hello', body, 3);
      const role = body.readUInt8(1);
      if (!ROLES.has(role)) throw new FrameDecodeError(ErrorCode.malformedFrame, `hello has unknown role ${role}`);
      const nameLength = body.readUInt8(2);
      requireLength('hello', body, 3 + nameLength + 10);
      const start = body.readUInt8(3 + nameLength);
      if (!START_KINDS.has(start)) throw new FrameDecodeError(ErrorCode.malformedFrame, `hello has unknown start kind ${start}`);
      const tokenAt = 3 + nameLength + 9;
      const tokenLength = body.readUInt8(tokenAt);
      requireLength('hello', body, tokenAt + 1 + tokenLength, true);
      return {
        type: 'hello',
        protocolVersion: body.readUInt8(0),
        role: role as Role,
        name: body.toString('utf8', 3, 3 + nameLength),
        start: start as StartKind,
        startOffset: readU64(body, 4 + nameLength, 'start offset'),
        token: Uint8Array.prototype.slice.call(body, tokenAt + 1, tokenAt + 1 + tokenLength),
      };
    }
    case FrameType.welcome:
      requireLength('welcome', body, 8, true);
      return { type: 'welcome', headOffset: readU64(body, 0, 'head offset') };
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
      if (!SYNC_KINDS.has(kind)) throw new FrameDecodeError(ErrorCode.malformedFrame, `syncEnd has unknown kind ${kind}`);
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
    case FrameType.error:
      requireLength('error', body, 2);
      return { type: 'error', code: body.readUInt16BE(0) as ErrorCode, message: body.toString('utf8', 2) };
    default:
      // Unreachable: the type is checked against FrameType as soon as the header arrives.
      throw new FrameDecodeError(ErrorCode.unknownFrameType, `unknown frame type 0x${type.toString(16)}`);
  }
}

/**
 * Streaming decoder for length-prefixed frames. Assumes nothing about how the
 * byte stream is chunked: a frame may span many chunks and a chunk may hold many
 * frames. Pull-based (push bytes, then call next() until null) so a caller can
 * stop between two frames, e.g. the broker pausing for backpressure.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failure: FrameDecodeError | undefined;

  constructor(private readonly maxFrameLength: number = MAX_FRAME_LENGTH) {}

  /** Bytes received but not yet returned as frames. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Takes ownership of `chunk`: the caller must not reuse its memory afterwards. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    this.buffered += chunk.length;
  }

  /** The next complete frame, or null until more bytes arrive. Throws FrameDecodeError, then keeps throwing it. */
  next(): Frame | null {
    if (this.failure) throw this.failure;
    try {
      return this.decodeOne();
    } catch (error) {
      this.chunks = [];
      this.buffered = 0;
      // Anything but a FrameDecodeError is a bug in this decoder: it stays failed,
      // but the original error propagates so tests (and logs) see it for what it is.
      this.failure = error instanceof FrameDecodeError ? error : new FrameDecodeError(ErrorCode.malformedFrame, 'the decoder failed earlier');
      throw error;
    }
  }

  private decodeOne(): Frame | null {
    if (this.buffered < FRAME_HEADER_LENGTH) return null;
    const header = this.peek(FRAME_HEADER_LENGTH);
    const length = header.readUInt32BE(0);
    const type = header.readUInt8(4);
    // Cap and type are checked before any of the body is buffered.
    if (length > this.maxFrameLength) {
      throw new FrameDecodeError(ErrorCode.frameTooLarge, `frame length ${length} exceeds the limit of ${this.maxFrameLength}`);
    }
    if (length === 0) throw new FrameDecodeError(ErrorCode.malformedFrame, 'frame length 0 leaves no room for its type');
    if (!FRAME_TYPE_NAMES.has(type)) {
      throw new FrameDecodeError(ErrorCode.unknownFrameType, `unknown frame type 0x${type.toString(16).padStart(2, '0')}`);
    }
    if (this.buffered < 4 + length) return null;
    this.consume(FRAME_HEADER_LENGTH);
    return parseBody(type, this.consume(length - 1));
  }

  /** The first n buffered bytes, without consuming them (n <= buffered). */
  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    return first.length >= n ? first : Buffer.concat(this.chunks, n);
  }

  /** Removes and returns n bytes: a view when they lie in one chunk, a copy across chunks. */
  private consume(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    this.buffered -= n;
    const first = this.chunks[0]!;
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const take = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, take);
      filled += take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    return out;
  }
}
