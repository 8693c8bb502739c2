/**
 * The broker's durable log (`@state-divergence/broker/log`): the API the broker's durable mode
 * and the benchmark use. Its parts (record codec, data-file check, database names) are exported
 * for tests through the package's ./internal. The policies themselves are protocol's (modes.ts),
 * re-exported here so the log's API is whole in one import.
 */
export { FSYNC_POLICIES, PERIODIC_FSYNC_MS, type FsyncPolicy } from '@state-divergence/protocol';
export { DurableLog, type DurableLogOptions } from './durable-log.js';
export { isFsyncPolicy } from './policy.js';
export { LogRefusal } from './refusal.js';
export type { LogRecord, LogRecovery, LogStats } from './types.js';
