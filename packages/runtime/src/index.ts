export { createLogger, setLogPhase, type Logger } from './logger.js';
export { processResources, runChild, type ChildContext, type RoleHandlers } from './child.js';
export { withDeadline, sleep } from './deadline.js';
export { wallClockMs } from './clock.js';
export { errorMessage } from './error-message.js';
export { ensureRoom } from './growable.js';
