/** Transport settings every run uses (the benchmarks use the same, to measure the same thing). */

/** Most events the broker puts in one QUIC write to one subscriber. */
export const BATCH_MAX_EVENTS = 256;
/**
 * Per-stream receive window at the broker (~600 events of 64 bytes). Small, so
 * that when the broker stops reading (lossless) the publisher feels it within
 * a second or two at 400/s; not smaller, because this library's window updates
 * lag and a 16 KiB window throttled even a broker that was reading (measured:
 * healthy p50 36 ms vs 10 ms).
 */
export const STREAM_WINDOW_BYTES = 64 * 1024;
export const HEARTBEAT_MS = 250;
/**
 * A consumer whose mode's broker speaks even when idle (PROGRESS every HEARTBEAT_MS) counts itself
 * stale after this long without a frame: three missed heartbeats (`--stale-after` changes it).
 */
export const DEFAULT_STALE_AFTER_MS = 3 * HEARTBEAT_MS;

/**
 * QUIC's idle timeout when --idle-timeout is not given: a frozen consumer's connection must outlive
 * its stall, or it dies instead of lagging (which would measure something else); margin for the
 * drain after it. Partitions do not raise it: one longer than it is meant to kill the connection.
 */
export const defaultIdleTimeoutMs = (longestStallMs: number): number => Math.ceil(longestStallMs * 2 + 10_000);
