/** One record of the log, as read back: its offset and the PUBLISH body verbatim. */
export interface LogRecord {
  offset: number;
  body: Buffer;
}

/** What DurableLog.open() found. */
export interface LogRecovery {
  /** Records the log holds after recovery: the intact ones, less any a smaller retention removed. */
  records: number;
  /** Torn records dropped at the tail (0 or 1: lmdb commits whole transactions, so only a damaged last record is taken
   * for a tear). */
  tornTail: number;
  /** The last offset appended (kept even when retention has removed every record). */
  head: number;
  /** The oldest retained offset; head + 1 when the log holds none. */
  oldest: number;
  /** A random integer < 2^53 made when the log was created and kept since. */
  epoch: number;
  /** The highest PUBLISH version in the log and its compacted table (0 if none). */
  highestVersion: number;
  /** Whether open() created the log (the directory was empty or absent). */
  created: boolean;
}

export interface LogStats {
  /**
   * Bytes of the records this incarnation appended to the log: each record's 16-byte header
   * and body. Not included: lmdb's overhead (keys, B-tree pages, free pages) and the
   * compacted table's copy of each record; dataFileBytes shows all of that.
   */
  logBytes: number;
  /** fdatasync calls this incarnation made on the data file (on-commit: one per commit, recovery's included; periodic:
   * one per timer tick that had new commits, and one at close). */
  fsyncs: number;
  /** Records this incarnation appended (committed). */
  appended: number;
  /** The size of data.mdb now: every record, the compacted table, lmdb's pages. */
  dataFileBytes: number;
}
