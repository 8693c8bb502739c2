/**
 * How the fault relay (packages/relay) treats one direction of one client's link to the broker,
 * as netem would: drop `lossPct` % of datagrams (100: a partition), each drop decision correlated
 * with the previous one by `correlationPct` % (netem's "loss 20% 75%"), hold each datagram
 * `delayMs` ± `jitterMs` before forwarding it, and pass at most `rateBytesPerSec` bytes a second
 * (0: no cap), a bottleneck's bandwidth. The orchestrator sends one shape per direction at a
 * network fault's start (`shape` command) and CLEAR_LINK for both at its end.
 */
export interface LinkShape {
  lossPct: number;
  correlationPct: number;
  delayMs: number;
  jitterMs: number;
  rateBytesPerSec: number;
}

export const CLEAR_LINK: LinkShape = { lossPct: 0, correlationPct: 0, delayMs: 0, jitterMs: 0, rateBytesPerSec: 0 };
export const PARTITIONED_LINK: LinkShape = { ...CLEAR_LINK, lossPct: 100 };

/** Largest delay (and jitter) a link may be given, ms: a datagram held longer is as good as lost to QUIC. */
export const MAX_LINK_DELAY_MS = 10_000;

/**
 * A cap's bounds, bytes a second (`--bandwidth NAME@FROM-TO:RATE`): 1 KB/s (a few datagrams a second;
 * below it a QUIC handshake alone would take seconds) to 100 MB/s (more than one relay process
 * forwards on these cores, so a higher cap would measure the relay, not the cap).
 */
export const MIN_LINK_RATE = 1_000;
export const MAX_LINK_RATE = 100_000_000;

/**
 * A cap's token bucket: 50 ms of its rate (at least one 1,500-byte packet), what leaves at once after
 * an idle spell. Small, so the cap holds over any stretch longer than that; not smaller, so the relay's
 * timers (~1-4 ms late) never leave the link idle while there is a budget.
 */
export const capBucketBytes = (rate: number): number => Math.max(1_500, Math.round(rate * 0.05));

/**
 * What a capped direction may hold before it refuses more, bytes: 250 ms of its rate (the router
 * rule of thumb, a bottleneck's buffer = bandwidth × a 250 ms RTT), at least `floor`. UDP drops the
 * datagram that would overflow it (drop-tail; floor: 4 datagrams, so a slow cap still queues a flight);
 * TCP stops reading the sender instead (floor: 64 KiB, one read: a smaller bound would pause after each).
 */
export const capQueueBytes = (rate: number, floor: number): number => Math.max(floor, Math.round(rate * 0.25));
