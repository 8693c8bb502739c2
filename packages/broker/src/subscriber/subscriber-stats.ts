import type {
  BlockedWrite,
  SubscriberCounters,
  SubscriberMark,
  SubscriberMarkKind,
  SubscriberReport,
} from '@state-divergence/protocol';
import { DropRanges } from './drop-ranges.js';
import type { ResyncCosts } from './resync-delta.js';
import { TransportTally } from '../transport-tally.js';

/** A write pending this long is blocked, not merely slow: a healthy one takes a few ms. */
const BLOCKED_WRITE_MS = 100;
/** The last ones are kept: what a report needs is the stall's, and a starved run blocks often before it. */
const BLOCKED_WRITES_KEPT = 256;
/** The first ones are kept: a timeline wants the trouble's start, and a consumer slowed for long can flap between drops
 * and room. */
const MARKS_KEPT = 512;

/** A write handed to the stream and not yet taken. */
export interface WriteInFlight {
  startedAt: number;
  bytesBefore: number;
  bytes: number;
}

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
  /** Events and bytes written from the log rather than from the live queue (a replay or a back-fill). */
  replayedEvents = 0;
  replayBytes = 0;
  /** Times a full live queue switched this name to reading the log. */
  backfills = 0;
  /** QUIC's own counters for its connections (the broker's side: where events are sent and resent). */
  readonly transport = new TransportTally();
  readonly drops = new DropRanges();
  /** What its resyncs cost, in running totals: each subscription's ResyncDelta (and back-fill) adds to them. */
  readonly costs: ResyncCosts = { lags: 0, resyncBytes: 0, resyncFrames: 0, fullSnapshotBytes: 0 };
  /** Why the latest subscription ended; null while one is live. */
  endedEarly: string | null = null;
  /** The offset the broker disconnected this name at, until it subscribes again (LastWrites.disconnectedAt). */
  disconnectedAt: number | null = null;
  bytesSent = 0;
  /** The latest subscription's write in flight; an older subscription's may still settle after it. */
  private inFlight: WriteInFlight | null = null;
  private readonly blocked: BlockedWrite[] = [];
  private readonly marks: SubscriberMark[] = [];
  /** Marks past MARKS_KEPT, counted so the timeline can say its marks were cut. */
  private marksDropped = 0;

  /** Something the timeline shows happened to this name now (the broker's Date.now, as blocked writes). */
  mark(what: SubscriberMarkKind, offset: number): void {
    if (this.marks.length < MARKS_KEPT) this.marks.push({ at: Date.now(), what, offset });
    else this.marksDropped += 1;
  }

  /** A write of `bytes` was handed to the stream: the record to give back to writeEnded. */
  writeStarted(bytes: number): WriteInFlight {
    const write = { startedAt: Date.now(), bytesBefore: this.bytesSent, bytes };
    this.bytesSent += bytes;
    this.inFlight = write;
    return write;
  }

  /** That write was taken (or failed). */
  writeEnded(write: WriteInFlight): void {
    const blocked = asBlocked(write);
    if (blocked !== undefined) {
      this.blocked.push(blocked);
      if (this.blocked.length > BLOCKED_WRITES_KEPT) this.blocked.shift();
    }
    if (this.inFlight === write) this.inFlight = null;
  }

  /** The blocked writes kept, the one still pending included. */
  blockedWrites(): BlockedWrite[] {
    const pending = this.inFlight === null ? undefined : asBlocked(this.inFlight);
    return pending === undefined ? [...this.blocked] : [...this.blocked, pending];
  }

  /** A new subscription of this name begins at `offset`. */
  subscribed(offset: number): void {
    this.mark('subscribed', offset);
    this.lastAccepted = offset;
    this.endedEarly = null;
    this.disconnectedAt = null;
  }

  counters(queued: number): SubscriberCounters {
    return {
      queued,
      delivered: this.delivered,
      dropped: this.drops.count,
      lastAccepted: this.lastAccepted,
      bytesSent: this.bytesSent,
    };
  }

  report(queued: number): SubscriberReport {
    return {
      ...this.counters(queued),
      droppedRanges: this.drops.ranges,
      maxQueued: this.maxQueued,
      endedEarly: this.endedEarly,
      disconnectedAt: this.disconnectedAt,
      disconnects: this.disconnects,
      lags: this.costs.lags,
      blockedWrites: this.blockedWrites(),
      marks: [...this.marks],
      replayedEvents: this.replayedEvents,
      replayBytes: this.replayBytes,
      backfills: this.backfills,
      transport: this.transport.total(),
      marksDropped: this.marksDropped,
      resumes: this.resumes,
      resyncBytes: this.costs.resyncBytes,
      resyncFrames: this.costs.resyncFrames,
      fullSnapshotBytes: this.costs.fullSnapshotBytes,
      discarded: this.discarded,
    };
  }
}

function asBlocked(write: WriteInFlight): BlockedWrite | undefined {
  const ms = Date.now() - write.startedAt;
  return ms >= BLOCKED_WRITE_MS ? { ...write, ms } : undefined;
}
