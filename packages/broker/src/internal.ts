/**
 * The broker's parts its unit tests drive without a process or QUIC (the package's `./internal`
 * export): nothing but tests imports this; the broker itself is the `.` and `./bundle` entries.
 */
export { CompactedTable } from './compacted-table.js';
export { DropLog } from './drop-log.js';
export { Acker } from './acker.js';
export { LogIntake, memoryIntake, StorageFailure } from './intake.js';
export { Topic } from './topic.js';
export { SubscriberStats } from './subscriber-stats.js';
export { lastWrites, subscriberReports } from './topic-views.js';
