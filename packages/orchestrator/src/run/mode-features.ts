import {
  HEARTBEAT_MS,
  modeSpec,
  queuePolicyOf,
  type BrokerInit,
  type ConsumerInit,
  type DurableSettings,
  type Mode,
  type OverflowPolicy,
} from '@state-divergence/protocol';

/**
 * What a mode means to each role, worked out here and nowhere else: a row of protocol's mode
 * table (modes.ts) becomes the features the broker and our consumers are sent. Neither is sent
 * the mode, so neither can read it differently, and no two fields can disagree about it: a broker
 * keeps a log exactly when it is given one (`durableLog`), a consumer resumes by offset exactly
 * when its broker does (`resumable`).
 */

/** What a broker does in `mode`, as BrokerInit carries it. */
export type BrokerFeatures = Pick<BrokerInit, 'queuePolicy' | 'durableLog' | 'heartbeatMs'>;

/** How one of our consumers subscribes and recovers in `mode`, as ConsumerInit carries it. */
export type ConsumerFeatures = Pick<
  ConsumerInit,
  'subscribeWith' | 'detectGaps' | 'resumable' | 'checkpointDir' | 'staleAfterMs'
>;

/**
 * The broker's features. `durableLog`: where its log lives, which the run's data dir gives only
 * to a mode whose row keeps one (run-mode.ts); a mode that keeps a log cannot run without it,
 * and one that keeps none is never given one.
 */
export function brokerFeatures(
  mode: Mode,
  overflow: OverflowPolicy,
  durableLog: DurableSettings | null,
): BrokerFeatures {
  const { keepsLog, heartbeat } = modeSpec(mode);
  if (keepsLog !== (durableLog !== null)) {
    const given = keepsLog ? 'no directory for its log' : 'a log it does not keep';
    throw new Error(`mode ${mode}'s broker was given ${given}`);
  }
  const heartbeatMs = heartbeat ? HEARTBEAT_MS : null;
  return { queuePolicy: queuePolicyOf(mode, overflow), durableLog, heartbeatMs };
}

/**
 * A consumer's features. `checkpointDir`: its own directory under the run's data dir, kept only
 * where the mode keeps a log (only there do offsets outlive a subscription); null otherwise.
 */
export function consumerFeatures(mode: Mode, checkpointDir: string | null, staleAfterMs: number): ConsumerFeatures {
  const { subscribeWith, detectGaps, heartbeat, keepsLog } = modeSpec(mode);
  return {
    subscribeWith,
    detectGaps,
    resumable: keepsLog,
    checkpointDir: keepsLog ? checkpointDir : null,
    // Staleness means something only where the broker speaks to an idle subscriber.
    staleAfterMs: heartbeat ? staleAfterMs : null,
  };
}
