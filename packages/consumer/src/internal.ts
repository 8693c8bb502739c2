/**
 * The consumer's parts its unit tests drive without a process or QUIC (the package's `./internal`
 * export): nothing but tests imports this; the consumer itself is the `.` and `./bundle` entries.
 */
export { StreamFollower, type FollowerOptions } from './stream-follower.js';
