export { createLogger, setLogPhase, type Logger } from './logger.js';
export { runChild, type ChildContext, type RoleHandlers } from './child.js';
export { cpuMicros, processResources } from './resources.js';
export { withDeadline, sleep } from './deadline.js';
export { CodedError } from './coded-error.js';
export { wallClockMs } from './clock.js';
export { errorMessage } from './error-message.js';
export { ensureRoom } from './growable.js';
export { backoffDelays, reachBrokerAgain, retryWithBackoff, BACKOFF_FIRST_MS, BACKOFF_MAX_MS, RECONNECT_ATTEMPT_MS, UNANNOUNCED_GIVE_UP_MS, unannouncedGiveUpMs, type RetryOptions } from './reconnect.js';
