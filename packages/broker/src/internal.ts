/**
 * The broker's parts its unit tests drive without a process or QUIC (the package's `./internal`
 * export): nothing but tests imports this; the broker itself is the `.` and `./bundle` entries.
 */
export { CompactedTable } from './compacted-table.js';
export { DropRanges } from './subscriber/drop-ranges.js';
export { Acker } from './acker.js';
export { servePublisher, type SessionContext } from './client-session.js';
export { LogIntake, memoryIntake, StorageFailure } from './intake.js';
export { Topic } from './topic.js';
export { SubscriberStats } from './subscriber/subscriber-stats.js';
export { lastWrites, subscriberReports } from './topic-views.js';
export { durableReport } from './durable-broker.js';
export * from './log/index.js';
export { DATA_FILE, LOCK_FILE } from './log/data-dir.js';
export { dataFileProblem } from './log/data-file.js';
export { GroupCommit } from './log/group-commit.js';
export { decodeRecord, encodeRecord, RECORD_HEADER_BYTES } from './log/record.js';
export { DB_NAMES, LOG_FORMAT, META_KEYS } from './log/stores.js';
export { TransportTally, type TransportSource } from './transport-tally.js';
