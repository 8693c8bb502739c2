/**
 * What check/ computes, declared here so that run/, report/, cli/ and experiments/ can name a
 * verdict, a latency summary or a stall's bytes without importing check/ (the functions that
 * compute them stay there: checker.ts, explain.ts, damage.ts, latency.ts, transport.ts).
 */

/** Jepsen's three outcomes: a checker that cannot tell says so. */
export type Verdict = 'valid' | 'invalid' | 'unknown';

/** How many wrong keys each explanation covers: check/explain.ts says what each one means. */
export interface Explained {
  /** Its last write at the final broker is among the offsets the consumer missed there. */
  missed: number;
  forgotten: number;
  lostWithBroker: number;
  inDoubt: number;
}

export interface ConsumerCheck {
  name: string;
  /** Faulted at some point of the run: stalled, slowed or crashed. */
  faulted: boolean;
  verdict: Verdict;
  applied: number | null;
  /** Key indices whose local state is wrong, ascending (the named keys come first). */
  wrongKeys: number[];
  /**
   * Wrong because behind: held at a version below the authority's, missing, or still held after
   * a delete.
   */
  lost: number;
  /** Held (key, version, value) the publisher never emitted: must be 0, or the demo is broken. */
  unexpected: number;
  /**
   * Keys where the wrong set and the explanation disagree: wrong although no
   * explanation covers it (check/explain.ts: the consumer missed the key's last write
   * at the final broker, dropped for it, skipped, before its `latest`
   * subscription, after a disconnect, and not repaired; or after a broker
   * restart forgotten, lost with the broker, in doubt), or explained by a
   * missed last write yet right. Must be 0: a nonzero count is a bug in the
   * demo, not a result. Empty when the broker's report is missing (unknown).
   */
  unexplainedKeys: number[];
  /**
   * How many wrong keys each explanation covers (check/explain.ts): after a broker restart, more
   * than `missed`.
   */
  explained: Explained;
  endedEarly: string | null;
  /**
   * Why its verdict is `unknown`, a phrase ("its copy could not be gathered"); null unless
   * unknown.
   */
  unknownBecause: string | null;
}

export interface CheckResult {
  verdict: Verdict;
  consumers: ConsumerCheck[];
  /**
   * Set when the run as a whole could not be judged (the checker failed, or the
   * broker's report is missing): the verdict is then `unknown`, never a guess.
   */
  error?: string;
}

/** Two faulted consumers' wrong keys against each other (check/damage.ts `overlaps`). */
export interface Overlap {
  a: string;
  b: string;
  both: number;
  onlyA: number;
  onlyB: number;
  /**
   * |A ∩ B| / |A ∪ B|; 1 when both are wrong about exactly the same keys, null when neither is
   * wrong.
   */
  jaccard: number | null;
}

/** Publish-to-apply latency percentiles (check/latency.ts `summarizeLatency`). */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/** What the broker had handed a consumer's stream, as it answered, on its own clock (Date.now). */
export interface BrokerSample {
  at: number;
  bytesSent: number;
}

/**
 * One stall, as the broker saw it: its answers to the status requests sent
 * as soon as the SIGSTOP and the SIGCONT were confirmed in /proc (null: that
 * answer never came, or the run ended first).
 */
export interface StallBytes {
  consumer: string;
  atFreeze: BrokerSample | null;
  atThaw: BrokerSample | null;
}

/**
 * How much of one stall the transport swallowed before the broker's queue saw
 * anything: a frozen consumer's socket and QUIC stack keep accepting until
 * quiche's congestion window is full (10 datagrams at first; more once it has
 * grown), so the bigger the datagram, the later the broker's queue starts to
 * fill, and the less of the stall it sees. Measured from the broker's answer
 * once the SIGSTOP was confirmed (an IPC round trip later, about a millisecond):
 * from when the consumer could no longer read.
 */
export type Absorption =
  /**
   * A write blocked `seconds` after the freeze, once the transport had taken `bytes`: from then
   * on the broker's queue filled.
   */
  | { consumer: string; queueFilled: true; bytes: number; seconds: number }
  /**
   * No write blocked: the transport took all `bytes` sent in the stall, and the broker's queue
   * never filled.
   */
  | { consumer: string; queueFilled: false; bytes: number; seconds: null };
