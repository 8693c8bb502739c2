import { ErrorCode, FRAME_HEADER_LENGTH, FrameType, MAX_FRAME_LENGTH } from './constants.js';
import { FrameDecodeError } from './decode-error.js';
import type { Frame } from './frames.js';
import { parseBody } from './parse-body.js';

export { FrameDecodeError } from './decode-error.js';

const FRAME_TYPE_NAMES = new Map<number, string>(Object.entries(FrameType).map(([name, type]) => [type, name]));
/** The u32 length that starts every frame. */
const LENGTH_BYTES = 4;

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
      this.failure =
        error instanceof FrameDecodeError
          ? error
          : new FrameDecodeError(ErrorCode.malformedFrame, 'the decoder failed earlier');
      throw error;
    }
  }

  private decodeOne(): Frame | null {
    // The length is judged as soon as its 4 bytes are here: a peer that sends a
    // bad length and then nothing still gets its answer, and no body is buffered.
    if (this.buffered < LENGTH_BYTES) return null;
    const length = this.peek(LENGTH_BYTES).readUInt32BE(0);
    if (length > this.maxFrameLength) {
      throw new FrameDecodeError(
        ErrorCode.frameTooLarge,
        `frame length ${length} exceeds the limit of ${this.maxFrameLength}`,
      );
    }
    if (length === 0)
      throw new FrameDecodeError(ErrorCode.malformedFrame, 'frame length 0 leaves no room for its type');
    if (this.buffered < FRAME_HEADER_LENGTH) return null;
    const type = this.peek(FRAME_HEADER_LENGTH).readUInt8(4);
    if (!FRAME_TYPE_NAMES.has(type)) {
      throw new FrameDecodeError(
        ErrorCode.unknownFrameType,
        `unknown frame type 0x${type.toString(16).padStart(2, '0')}`,
      );
    }
    if (this.buffered < LENGTH_BYTES + length) return null;
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
