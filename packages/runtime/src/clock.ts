/**
 * Wall-clock milliseconds with sub-millisecond resolution. Every process on one
 * machine reads the same wall clock, so a timestamp taken in the publisher can
 * be subtracted from one taken in a consumer (publish-to-apply latency).
 */
export const wallClockMs = (): number => performance.timeOrigin + performance.now();
