import type { ErrorCode } from './constants.js';

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
