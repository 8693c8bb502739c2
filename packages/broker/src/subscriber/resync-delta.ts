import { encodeLag, encodeSyncEnd, SyncKind } from '@state-divergence/protocol';
import type { CompactedTable } from '../compacted-table.js';

/** A pending resync: everything after `from` will be sent as a delta. */
export interface Lag {
  from: number;
  /** Broker-initiated (overflow) recoveries start with a LAG frame; a client's RESUME already knows. */
  signal: boolean;
}

/** One resync, ready to write: afterwards the subscriber's stream stands at `head`. */
export interface DeltaFrames {
  from: number;
  head: number;
  /** Keys in the delta (STATE frames, tombstones included). */
  keys: number;
  frames: Buffer[];
}

/**
 * What one subscriber's resyncs have cost (SubscriberReport's fields of the same names);
 * fullSnapshotBytes also grows at each back-fill, for the cost table to set beside it.
 */
export interface ResyncCosts {
  lags: number;
  resyncBytes: number;
  resyncFrames: number;
  fullSnapshotBytes: number;
}

/**
 * A subscriber's resync from the compacted table (a full queue under `resync`, or a RESUME on a
 * broker without a log): its pending delta, and what its resyncs have cost. Not the durable
 * log's crash recovery (log/crash-recovery.ts). Lags that arrive before the writer can send
 * merge: the delta starts at the earliest lag point, and opens with a LAG frame if any of them
 * was the broker's.
 */
export class ResyncDelta {
  private lag: Lag | undefined;

  constructor(
    private readonly table: CompactedTable,
    private readonly headOffset: () => number,
    /** Running totals this resync adds to: they belong to the subscriber's name, and outlive one subscription. */
    private readonly spent: ResyncCosts = { lags: 0, resyncBytes: 0, resyncFrames: 0, fullSnapshotBytes: 0 },
  ) {}

  get pending(): boolean {
    return this.lag !== undefined;
  }

  get costs(): ResyncCosts {
    return { ...this.spent };
  }

  /** Records a lag. True when it starts a recovery, false when it widens the pending one. */
  mark(lag: Lag): boolean {
    if (this.lag === undefined) {
      if (lag.signal) this.spent.lags += 1;
      this.lag = lag;
      return true;
    }
    this.lag = { from: Math.min(this.lag.from, lag.from), signal: this.lag.signal || lag.signal };
    return false;
  }

  /** LAG (if broker-initiated), the delta since the lag point, SYNC_END at the head; nothing is pending afterwards. */
  take(): DeltaFrames | undefined {
    const lag = this.lag;
    if (lag === undefined) return undefined;
    this.lag = undefined;
    const head = this.headOffset();
    const delta = this.table.stateFramesSince(lag.from);
    const frames = [
      ...(lag.signal ? [encodeLag(lag.from + 1, head)] : []),
      ...delta,
      encodeSyncEnd(SyncKind.delta, head),
    ];
    this.spent.resyncFrames += frames.length;
    this.spent.resyncBytes += frames.reduce((sum, f) => sum + f.length, 0);
    this.spent.fullSnapshotBytes += this.table.fullSnapshotBytes;
    return { from: lag.from, head, keys: delta.length, frames };
  }
}
