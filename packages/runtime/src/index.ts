export { createLogger, logDestination, setLogPhase, type Logger } from './logger.js';
export { roleEntry, runChild, runChildOf, type ChildContext, type RoleEntry } from './child.js';
export type { Hosted, RoleHandlers } from './serve-request.js';
export { createPrng } from './prng.js';
export { cpuMicros, processResources } from './resources.js';
export { withDeadline, sleep } from './deadline.js';
export { CodedError } from './coded-error.js';
export { wallClockMs } from './clock.js';
export { errorMessage } from './error-message.js';
export { exitFlushed } from './exit.js';
export { ensureRoom } from './growable.js';
export {
  backoffDelays,
  reachBrokerAgain,
  retryWithBackoff,
  BACKOFF_FIRST_MS,
  BACKOFF_MAX_MS,
  RECONNECT_ATTEMPT_MS,
  UNANNOUNCED_GIVE_UP_MS,
  unannouncedGiveUpMs,
  longestSurvivableCutMs,
  type RetryOptions,
} from './reconnect.js';
