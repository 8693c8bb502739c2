import { setTimeout as sleep } from 'node:timers/promises';
import type { PublishingOrigin } from '../model/events.js';

/**
 * The run's one monotonic clock, read against two marks: the start of the mode
 * (event times, so start-up is on the record) and the start of publishing (the
 * plan's times, phases and the live view). Wall-clock time is never used for
 * waiting: only for what other processes timestamp (latency, the stall window).
 */
export class RunClock {
  private readonly started = performance.now();
  private publishing: number | undefined;
  private publishingWallMs = 0;

  /** Ms since the mode started, to 0.1 ms: the time of every RunEvent. */
  sinceStart(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }

  /** Publishing starts now: the plan's time 0. */
  markPublishing(): void {
    this.publishing = performance.now();
    this.publishingWallMs = Date.now();
  }

  /** When publishing started, on the run clock and the wall clock: what converts the children's times to the plan's. */
  origin(): PublishingOrigin {
    const runMs = this.publishing === undefined ? 0 : Math.round((this.publishing - this.started) * 10) / 10;
    return { runMs, wallMs: this.publishingWallMs };
  }

  /** Seconds since publishing started, to 0.1 s (0 before it did). */
  seconds(): number {
    return this.publishing === undefined ? 0 : Math.round((performance.now() - this.publishing) / 100) / 10;
  }

  /** Sleeps until `atMs` after publishing started; ends early (rejects) on abort. */
  async until(atMs: number, signal: AbortSignal): Promise<void> {
    const origin = this.publishing ?? performance.now();
    await sleep(Math.max(0, origin + atMs - performance.now()), undefined, { signal });
  }
}
