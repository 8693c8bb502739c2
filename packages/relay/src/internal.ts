/**
 * The relay's parts its unit tests drive without a process or sockets (the package's `./internal`
 * export): nothing but tests imports this; the relay itself is the `.` and `./bundle` entries.
 */
export { DelayLine, type Timers } from './delay-line.js';
export { Direction } from './direction.js';
export { HeldQueue } from './held-queue.js';
export { LinkShaper } from './link-shaper.js';
export { IDLE_CLOSE_MS, SOCKET_BUFFER_BYTES } from './relay.js';
