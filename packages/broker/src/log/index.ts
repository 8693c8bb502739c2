/**
 * The broker's durable log (`@state-divergence/broker/log`): the API the broker's durable mode
 * and the benchmark use. Its parts (record codec, data-file check, database names) are exported
 * for tests through the package's ./internal.
 */
export { DurableLog, type DurableLogOptions } from './durable-log.js';
export { LogRefusal } from './refusal.js';
export { FSYNC_POLICIES, PERIODIC_FSYNC_MS, isFsyncPolicy, type FsyncPolicy } from './policy.js';
export type { LogRecord, LogRecovery, LogStats } from './types.js';
