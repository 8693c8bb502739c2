/**
 * The relay's parts its unit tests drive without a process (the package's `./internal` export):
 * nothing but tests imports this; the relay itself is the `.` and `./bundle` entries.
 */
export { CapMeter, capWindow } from './cap-meter.js';
export { DelayLine, type Timers } from './delay-line.js';
export { Direction } from './direction.js';
export { HeldQueue } from './held-queue.js';
export { LinkShaper } from './link-shaper.js';
export { IDLE_TIMING, Relay, SOCKET_BUFFER_BYTES, type IdleTiming } from './relay.js';
export { DirectionTally, StreamPipe, type StreamPolicy } from './stream-pipe.js';
export { TcpRelay } from './tcp-relay.js';
export { TokenBucket } from './token-bucket.js';
