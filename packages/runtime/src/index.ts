export { createLogger, setLogPhase, type Logger } from './logger.js';
export { runChild, type ChildContext, type RoleHandlers } from './child.js';
export { processResources } from './resources.js';
export { withDeadline, sleep } from './deadline.js';
export { CodedError } from './coded-error.js';
export { wallClockMs } from './clock.js';
export { errorMessage } from './error-message.js';
export { ensureRoom } from './growable.js';
