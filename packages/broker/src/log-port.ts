/**
 * What the broker uses of its durable log (log/: DurableLog), as an interface: the topic,
 * the publish path and the back-filling writers depend on this shape only, so their unit
 * tests run them over an in-memory log with the same contract.
 */

/** One retained event: its offset and its PUBLISH body, verbatim. */
export interface LogRecord {
  offset: number;
  body: Buffer;
}

/** What a back-filling writer reads: committed records, one bounded page at a time. */
export interface LogReader {
  /** Up to `limit` committed records with offsets > afterOffset, in order (a synchronous page). */
  read(afterOffset: number, limit: number): LogRecord[];
  /** The oldest retained offset (head + 1 when the log holds nothing). */
  readonly oldest: number;
}

export interface BrokerLog extends LogReader {
  readonly recovery: {
    records: number;
    tornTail: number;
    head: number;
    oldest: number;
    epoch: number;
    highestVersion: number;
    created: boolean;
  };
  /** Resolves in order, once the record is durable under the fsync policy; rejects on a storage error. */
  append(offset: number, key: number, body: Uint8Array): Promise<void>;
  /** Each key's last write, in offset order: the compacted table is rebuilt from it. */
  latestWrites(): LogRecord[];
  readonly head: number;
  stats(): { logBytes: number; fsyncs: number; appended: number };
  close(): Promise<void>;
}
