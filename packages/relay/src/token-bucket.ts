/**
 * A bandwidth cap's budget: `rate` bytes a second, refilled continuously (from the clock each call
 * is given, so tests drive it), up to `capacity` bytes (the burst an idle link lets through at once).
 * A full bucket at the start: a link that was idle has its burst to give. Pure: no timers of its own.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly rate: number,
    readonly capacity: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  /** TCP: how many of `want` bytes may leave now (a byte stream leaves piece by piece), taken from the budget. */
  take(want: number, now: number): number {
    this.refill(now);
    const n = Math.max(0, Math.min(want, Math.floor(this.tokens)));
    this.tokens -= n;
    return n;
  }

  /** How long until `bytes` may leave, ms (0: now); at most `capacity` are ever waited for at once. */
  waitMs(bytes: number, now: number): number {
    this.refill(now);
    const short = Math.min(bytes, this.capacity) - this.tokens;
    return short <= 0 ? 0 : (short * 1000) / this.rate;
  }

  /**
   * UDP: books `bytes` (a datagram leaves whole or not at all), into debt if the budget is short;
   * returns how long until it may leave, ms: when the debt ahead of it and its own are paid.
   */
  reserve(bytes: number, now: number): number {
    this.refill(now);
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
  }

  /** Bytes booked and not yet paid for (reserve): what waits in the queue now. */
  debt(now: number): number {
    this.refill(now);
    return Math.max(0, -this.tokens);
  }

  private refill(now: number): void {
    if (now > this.last) this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.rate) / 1000);
    this.last = Math.max(this.last, now);
  }
}
