/**
 * The consumer's parts its unit tests drive without a process or QUIC (the package's `./internal`
 * export): nothing but tests imports this; the consumer itself is the `.` and `./bundle` entries.
 */
export { StreamFollower, type FollowerOptions, type StreamStart } from './stream-follower.js';
export { LocalCopy, type HeldEntry } from './local-copy.js';
export {
  CHECKPOINT_FILE,
  decodeCheckpoint,
  encodeCheckpoint,
  loadCheckpoint,
  saveCheckpoint,
  saveCheckpointSync,
  type CheckpointState,
} from './checkpoint.js';
export { Checkpointer, CHECKPOINT_INTERVAL_MS } from './checkpointer.js';
export { SubscriptionLog } from './subscription-log.js';
export { StaleTracker, STALE_SPANS_KEPT, type StaleTransitions } from './stale-tracker.js';
