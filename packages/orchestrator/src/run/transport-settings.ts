/** Transport settings every run uses (the benchmarks use the same, to measure the same thing). */

/**
 * Most events the broker puts in one QUIC write to one subscriber (and in one page of a back-fill).
 * Above the default queue (512), so a writer that fell behind takes everything queued in its next
 * write: at the seed's firehose (20,000/s arriving in 400-event publisher ticks) 256 left the queue
 * overflowing behind two writes per tick (measured, alternated, load 4-7: healthy drops 16.5 k and
 * 20.6 k at 256, 4.3 k and 6.5 k at 1,024, the same CPU per event).
 */
export const BATCH_MAX_EVENTS = 1024;
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
