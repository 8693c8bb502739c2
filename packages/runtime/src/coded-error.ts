/**
 * An error with a stable `code` a caller can branch on (execa's and Node's habit):
 * the message is for people, the code for programs. Wrapped errors keep `cause`.
 */
export class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CodedError';
  }
}
