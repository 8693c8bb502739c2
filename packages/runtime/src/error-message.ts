/**
 * One line describing a rejection reason. The QUIC library rejects pending
 * reads and writes with `null` when a stream is destroyed: that means the
 * connection went away, and the message should say so rather than "null".
 * Its own errors often carry no message, only a name and a description
 * (ErrorQUICConnectionIdleTimeout: "QUIC Connection max idle timeout exhausted"):
 * those are said instead of nothing.
 */
export function errorMessage(error: unknown): string {
  if (error === null || error === undefined) return 'the QUIC connection was closed';
  if (error instanceof Error) return error.message || describedError(error);
  return String(error);
}

function describedError(error: Error): string {
  const description = 'description' in error && typeof error.description === 'string' ? error.description : '';
  return description ? `${error.name}: ${description}` : error.name;
}
