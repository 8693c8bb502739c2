/**
 * One line describing a rejection reason. The QUIC library rejects pending
 * reads and writes with `null` when a stream is destroyed: that means the
 * connection went away, and the message should say so rather than "null".
 */
export function errorMessage(error: unknown): string {
  if (error === null || error === undefined) return 'the QUIC connection was closed';
  if (error instanceof Error) return error.message;
  return String(error);
}
