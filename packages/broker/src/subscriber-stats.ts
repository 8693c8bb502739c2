import type { SubscriberCounters, SubscriberReport } from '@state-divergence/protocol';
import { DropLog } from './drop-log.js';
import type { RecoveryCosts } from './recovery.js';

/**
 * What the broker knows about one subscriber name, across every subscription
 * of that name. A consumer the broker disconnected comes back under the same
 * name; its drops, deliveries and disconnects before that are still its own,
 * and the report the checker reads must hold all of them.
 */
export class SubscriberStats {
  delivered = 0;
  maxQueued = 0;
  /** Highest offset accepted into the current (or last) subscription's queue. */
  lastAccepted = 0;
  resumes = 0;
  discarded = 0;
  disconnects = 0;
  readonly drops = new DropLog();
  /** Recovery's running totals: each subscription's Recovery adds to this object. */
  readonly costs: RecoveryCosts = { lags: 0, resyncBytes: 0, resyncFrames: 0, fullSnapshotBytes: 0 };
  /** Why the latest subscription ended; null while one is live. */
  endedEarly: string | null = null;
  /** The offset the broker disconnected this name at, until it subscribes again (LastWrites.disconnectedAt). */
  disconnectedAt: number | null = null;

  /** A new subscription of this name begins at `offset`. */
  subscribed(offset: number): void {
    this.lastAccepted = offset;
    this.endedEarly = null;
    this.disconnectedAt = null;
  }

  counters(queued: number): SubscriberCounters {
    return { queued, delivered: this.delivered, dropped: this.drops.count, lastAccepted: this.lastAccepted };
  }

  report(queued: number): SubscriberReport {
    return {
      ...this.counters(queued),
      droppedRanges: this.drops.ranges,
      maxQueued: this.maxQueued,
      endedEarly: this.endedEarly,
      disconnects: this.disconnects,
      lags: this.costs.lags,
      resumes: this.resumes,
      resyncBytes: this.costs.resyncBytes,
      resyncFrames: this.costs.resyncFrames,
      fullSnapshotBytes: this.costs.fullSnapshotBytes,
      discarded: this.discarded,
    };
  }
}
