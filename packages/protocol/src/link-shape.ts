/**
 * How the fault relay (packages/relay) treats one direction of one client's link to the broker,
 * as netem would: drop `lossPct` % of datagrams (100: a partition), each drop decision correlated
 * with the previous one by `correlationPct` % (netem's "loss 20% 75%"), and hold each datagram
 * `delayMs` ± `jitterMs` before forwarding it. The orchestrator sends one shape per direction at a
 * network fault's start (`shape` command) and CLEAR_LINK for both at its end.
 */
export interface LinkShape {
  lossPct: number;
  correlationPct: number;
  delayMs: number;
  jitterMs: number;
}

export const CLEAR_LINK: LinkShape = { lossPct: 0, correlationPct: 0, delayMs: 0, jitterMs: 0 };
export const PARTITIONED_LINK: LinkShape = { ...CLEAR_LINK, lossPct: 100 };

/** Largest delay (and jitter) a link may be given, ms: a datagram held longer is as good as lost to QUIC. */
export const MAX_LINK_DELAY_MS = 10_000;
