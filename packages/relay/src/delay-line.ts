import { HeldQueue } from './held-queue.js';

/**
 * A timer fires up to about a millisecond off the clock it is compared with: what is due within
 * this much leaves with the batch, rather than the line re-arming a timer for a fraction of a ms.
 */
const TIMER_SLACK_MS = 1;

/** The timer a DelayLine uses: Node's by default, a fake one in unit tests. */
export interface Timers {
  now(): number;
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const NODE_TIMERS: Timers = {
  now: () => performance.now(),
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Holds items until their time, then hands each to `release`: a time-ordered queue with ONE timer,
 * armed for the earliest item, so a delayed link costs one timer whatever it holds (not one
 * setTimeout per datagram).
 */
export class DelayLine<T> {
  private readonly queue = new HeldQueue<T>();
  private timer: unknown;
  /** When the armed timer fires (Infinity: none armed). */
  private armedFor = Infinity;

  constructor(
    private readonly release: (item: T) => void,
    private readonly timers: Timers = NODE_TIMERS,
  ) {}

  get held(): number {
    return this.queue.size;
  }

  hold(item: T, ms: number): void {
    const due = this.timers.now() + ms;
    this.queue.push(due, item);
    if (due < this.armedFor) this.arm(due);
  }

  /** Hands over everything held now, in due order (a cap's end: what it queued leaves at full speed). */
  releaseAll(): void {
    this.disarm();
    for (let item = this.queue.pop(); item !== undefined; item = this.queue.pop()) this.release(item);
  }

  /** Forgets everything held (at stop: what was held is never sent). */
  clear(): void {
    this.disarm();
    this.queue.clear();
  }

  private arm(due: number): void {
    this.disarm();
    this.armedFor = due;
    this.timer = this.timers.set(this.fire, Math.max(0, due - this.timers.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Infinity;
    const until = this.timers.now() + TIMER_SLACK_MS;
    for (let due = this.queue.nextDue(); due !== undefined && due <= until; due = this.queue.nextDue())
      this.release(this.queue.pop()!);
    const next = this.queue.nextDue();
    if (next !== undefined) this.arm(next);
  };
}
