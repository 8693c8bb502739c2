import { sleep } from './deadline.js';
import { errorMessage } from './error-message.js';
import type { Logger } from './logger.js';

/**
 * The wait before each attempt to reach the broker again: 100 ms, doubling to 1 s, then 1 s
 * for as long as it takes. The first wait is not zero: a client learns of a lost broker at
 * the moment it died, and a new one is never up that fast.
 */
export const BACKOFF_FIRST_MS = 100;
export const BACKOFF_MAX_MS = 1_000;

/**
 * One reconnection attempt's bound (handshake, then WELCOME). A broker that is down answers
 * nothing (UDP), and QUIC resends its first packet only after ~1 s, so short attempts between
 * the backoff's waits reach a broker that just came up sooner than one long attempt would.
 */
export const RECONNECT_ATTEMPT_MS = 500;
/**
 * A stream that fails without the orchestrator having announced the broker's loss may be a
 * passing fault: a client tries at least this long, then gives up (the failure is reported).
 * After an announced loss it tries until a broker answers or the run ends.
 */
export const UNANNOUNCED_GIVE_UP_MS = 3_000;

/**
 * How long a client retries after an unannounced loss: UNANNOUNCED_GIVE_UP_MS, or the QUIC idle
 * timeout if longer. A network partition longer than the idle timeout kills the connection at
 * both ends, and the partition may last as long again: the client must keep trying for as long
 * as a connection would have waited for its peer, or it would give up on a link that heals.
 */
export function unannouncedGiveUpMs(idleTimeoutMs: number): number {
  return Math.max(UNANNOUNCED_GIVE_UP_MS, idleTimeoutMs);
}

/**
 * The longest cut-off (a partition of its link) a client comes back from: its connection dies one
 * idle timeout in, then it retries for unannouncedGiveUpMs; the last attempt that can still succeed
 * starts at least one attempt's bound (RECONNECT_ATTEMPT_MS) before that window closes. A longer
 * cut ends its subscription for good, and a publisher's with the run (it exits 1).
 */
export function longestSurvivableCutMs(idleTimeoutMs: number): number {
  return idleTimeoutMs + unannouncedGiveUpMs(idleTimeoutMs) - RECONNECT_ATTEMPT_MS;
}

export function* backoffDelays(): Generator<number, never> {
  for (let delay = BACKOFF_FIRST_MS; ; delay = Math.min(BACKOFF_MAX_MS, delay * 2)) yield delay;
}

export interface RetryOptions {
  /** Checked after every wait and every failure: true ends the loop with `undefined` (closing, or a newer loss took
   * over). */
  stop: () => boolean;
  /** performance.now() after which a failure is final (null: retry until stopped). */
  giveUpAt: number | null;
  onFailure: (error: unknown, attempt: number, nextDelayMs: number) => void;
}

/**
 * Runs `attempt` (which must bound its own duration) after each backoff delay until one
 * succeeds. Resolves with its value, or `undefined` once `stop()` says so; rejects with the
 * last failure once `giveUpAt` has passed.
 */
export async function retryWithBackoff<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T | undefined> {
  const delays = backoffDelays();
  let delay = delays.next().value;
  for (let count = 1; ; count++) {
    await sleep(delay);
    if (options.stop()) return undefined;
    try {
      return await attempt();
    } catch (error) {
      if (options.stop()) return undefined;
      if (options.giveUpAt !== null && performance.now() >= options.giveUpAt) throw error;
      delay = delays.next().value;
      options.onFailure(error, count, delay);
    }
  }
}

/**
 * A client's way back after it lost the broker, the one policy the publisher and our consumer
 * share: attempts with backoff, each failure logged as `no broker yet`; after an announced loss
 * (`brokerLost`) until a broker answers or `stale()`, after an unannounced one for
 * unannouncedGiveUpMs(idleTimeoutMs), then `gaveUp` with one sentence. A session reached once `stale()`
 * (closing, or a newer loss took over) is closed, never adopted.
 */
export function reachBrokerAgain<T extends { session: { close(): Promise<void> } }>(options: {
  attempt: () => Promise<T>;
  announced: boolean;
  /** Why the broker was lost: the give-up sentence starts with it. */
  reason: string;
  /** The endpoint's QUIC idle timeout (BrokerEndpoint.idleTimeoutMs): it bounds an unannounced loss's retries from
   * below. */
  idleTimeoutMs: number;
  stale: () => boolean;
  logger: Logger;
  reached: (value: T) => void;
  gaveUp: (message: string) => void;
}): void {
  const { stale, logger } = options;
  const giveUpMs = unannouncedGiveUpMs(options.idleTimeoutMs);
  retryWithBackoff(options.attempt, {
    stop: stale,
    giveUpAt: options.announced ? null : performance.now() + giveUpMs,
    onFailure: (error, attempt, nextDelayMs) =>
      logger.info({ attempt, nextDelayMs, reason: errorMessage(error) }, 'no broker yet'),
  }).then(
    (value) => {
      if (value === undefined) return;
      if (stale()) return void value.session.close();
      options.reached(value);
    },
    (error: unknown) =>
      options.gaveUp(`${options.reason}, and no broker answered within ${giveUpMs / 1000} s: ${errorMessage(error)}`),
  );
}
