import { sleep } from '@state-divergence/runtime';

export interface PacerOptions {
  /** Changes per second. */
  rate: number;
  durationMs: number;
  /** Makes `count` changes and sends them in one write; resolves when the transport took them. */
  sendBatch: (count: number) => Promise<void>;
  /** Largest batch per write. */
  maxBatch: number;
  /**
   * How far behind schedule the pacer may fall before it forgets the backlog.
   * A publisher blocked by the broker does not queue changes it could not send
   * (that would be an unbounded buffer): it makes fewer. Small hiccups (a busy
   * event loop) are caught up in full, so an unblocked run publishes exactly
   * rate x duration.
   */
  maxLagMs: number;
  /** Coalescing interval: changes due within one tick go out in one write. */
  tickMs: number;
}

export interface PaceResult {
  published: number;
  /** Changes that fell due while the publisher was blocked and were never made. */
  forgone: number;
  /** Time spent waiting for the transport to accept a write. */
  blockedMs: number;
}

/**
 * Publishes on a schedule derived from elapsed time (not from counting ticks,
 * which drifts): at time t, floor(rate * t) changes should have gone out.
 */
export async function pace(options: PacerOptions): Promise<PaceResult> {
  const { rate, durationMs, maxBatch } = options;
  const maxLag = Math.max(1, Math.ceil((rate * options.maxLagMs) / 1000));
  const start = performance.now();
  let published = 0;
  let forgone = 0;
  let blockedMs = 0;
  for (;;) {
    const elapsed = Math.min(performance.now() - start, durationMs);
    let due = Math.floor((rate * elapsed) / 1000) - forgone - published;
    if (due > maxLag) {
      forgone += due - maxLag;
      due = maxLag;
    }
    if (due > 0) {
      const count = Math.min(due, maxBatch);
      published += count;
      const before = performance.now();
      await options.sendBatch(count);
      blockedMs += performance.now() - before;
      continue;
    }
    if (elapsed >= durationMs) break;
    const nextDueMs = ((published + forgone + 1) * 1000) / rate - elapsed;
    await sleep(Math.max(options.tickMs, Math.min(nextDueMs, durationMs - elapsed)));
  }
  return { published, forgone, blockedMs };
}
