import {
  eventFrameBytes,
  SyncKind,
  type Change,
  type DigestFrame,
  type Frame,
  type SyncRecord,
} from '@state-divergence/protocol';
import { wallClockMs } from '@state-divergence/runtime';
import { LatencyLog } from './latency-log.js';
import { LocalCopy } from './local-copy.js';

export interface FollowerOptions {
  /** Check that event offsets are contiguous and ask for a resume on a gap. */
  detectGaps: boolean;
  /** Offset the stream starts after (WELCOME's head for a latest subscribe). */
  startOffset: number;
  /** True while a snapshot is expected before live events. */
  awaitingSnapshot: boolean;
  requestResume: (fromOffset: number) => void;
  onDigest: (frame: DigestFrame) => void;
  /**
   * A broker with a log answers a RESUME with the log's events after the offset, not a delta
   * ending in SYNC_END: the gap is closed when the next contiguous event arrives.
   */
  resumeReplays?: boolean;
  /** A copy restored from a checkpoint (startOffset is then the checkpoint's offset). */
  copy?: LocalCopy;
}

/** How a subscription's stream begins, after its WELCOME. */
export type StreamStart = 'latest' | 'snapshot' | 'replay';

/**
 * Applies the broker's frames to the local copy and keeps the counters a
 * consumer can know by itself: applied events, last offset, lags, resumes,
 * syncs. It holds no transport: main.ts feeds it frames.
 */
export class StreamFollower {
  readonly copy: LocalCopy;
  readonly latency = new LatencyLog();
  applied = 0;
  lastOffset: number;
  /**
   * The highest version applied up to lastOffset (events in order, and syncs that ended). Without
   * gap detection, up to the first hole of the current subscription only.
   */
  lastVersion = 0;
  lags = 0;
  resumes = 0;
  readonly syncs: SyncRecord[] = [];
  /** Live keys snapshots removed from the copy: [key, version it had]. */
  readonly removedBySnapshot: Array<[number, number]> = [];
  syncing: boolean;
  /** The snapshot being received: it replaces the copy at its SYNC_END. */
  private staging: LocalCopy | null;
  private syncFrames = 0;
  private syncBytes = 0;
  private syncVersion = 0;
  private syncKeys = new Set<number>();
  /** Without gap detection: this subscription's stream skipped an offset (a drop), so lastVersion no longer grows. */
  private holeSinceBegin = false;

  constructor(private readonly options: FollowerOptions) {
    this.copy = options.copy ?? new LocalCopy();
    this.lastOffset = options.startOffset;
    this.syncing = options.awaitingSnapshot;
    this.staging = options.awaitingSnapshot ? new LocalCopy() : null;
  }

  /** lastOffset, unless a snapshot is half received (the copy and the offset do not match then). */
  get resumableOffset(): number | null {
    return this.staging === null ? this.lastOffset : null;
  }

  /** Returns an error description for a frame a subscriber must never receive. */
  handle(frame: Frame): string | undefined {
    switch (frame.type) {
      case 'event':
        (this.staging ?? this.copy).apply(frame.change);
        this.latency.record(wallClockMs(), frame.change.publishedAt);
        this.applied += 1;
        this.followOffset(frame.offset, frame.change);
        return undefined;
      case 'state':
        (this.staging ?? this.copy).apply(frame.change);
        this.syncFrames += 1;
        this.syncBytes += eventFrameBytes(frame.change.payloadLength);
        this.syncVersion = Math.max(this.syncVersion, frame.change.version);
        this.syncKeys.add(frame.change.key);
        return undefined;
      case 'syncEnd':
        this.endSync(frame.kind, frame.offset);
        return undefined;
      case 'lag':
        this.lags += 1;
        this.syncing = true;
        return undefined;
      case 'progress':
        return undefined; // a heartbeat: nothing to apply (the drain asks over IPC instead)
      case 'digest':
        this.options.onDigest(frame);
        return undefined;
      default:
        return `unexpected ${frame.type} frame from the broker`;
    }
  }

  /**
   * A new subscription's stream, whose WELCOME carried `headOffset`. In a new epoch the
   * offsets start again: the bookkeeping is about the broker's current incarnation only.
   * In the same epoch, `latest` receives only what comes after the head and returns the
   * offsets skipped on the way, [lastOffset + 1, headOffset] (the local copy is kept: that
   * is what a naive informer does, and why it stays wrong); `replay` carries on from
   * lastOffset; `snapshot` receives a copy that replaces this one at its SYNC_END.
   */
  begin(start: StreamStart, headOffset: number, newEpoch: boolean): [number, number] | undefined {
    // A sync cut off by the disconnect will never end: the new stream starts afresh.
    this.resetSync();
    this.holeSinceBegin = false;
    this.syncing = start === 'snapshot';
    this.staging = start === 'snapshot' ? new LocalCopy() : null;
    if (newEpoch) {
      this.lastOffset = headOffset;
      return undefined;
    }
    if (start !== 'latest') return undefined;
    const skipped: [number, number] | undefined =
      headOffset > this.lastOffset ? [this.lastOffset + 1, headOffset] : undefined;
    this.lastOffset = Math.max(this.lastOffset, headOffset);
    return skipped;
  }

  private followOffset(offset: number, change: Change): void {
    const advance = (): void => {
      this.lastOffset = offset;
      this.lastVersion = Math.max(this.lastVersion, change.version);
    };
    if (!this.options.detectGaps) {
      // Without gap detection the offset follows every event, but lastVersion stops at the first
      // hole of this subscription: a subscription's record says how far its stream reached
      // contiguously, and what the broker dropped below it died with a killed broker.
      if (offset !== this.lastOffset + 1) this.holeSinceBegin = true;
      if (this.holeSinceBegin) this.lastOffset = offset;
      else advance();
      return;
    }
    if (offset === this.lastOffset + 1) {
      // A replayed RESUME closes the gap with the next contiguous event; a delta only with its SYNC_END.
      if (this.syncing && this.options.resumeReplays === true && this.staging === null) this.syncing = false;
      if (!this.syncing) advance();
    } else if (offset > this.lastOffset + 1 && !this.syncing) this.startResume();
  }

  private endSync(kind: SyncKind, offset: number): void {
    const snapshot = kind === SyncKind.snapshot;
    this.syncs.push({
      kind: snapshot ? 'snapshot' : 'delta',
      at: wallClockMs(),
      frames: this.syncFrames,
      keys: this.syncKeys.size,
      bytes: this.syncBytes,
      offset,
    });
    if (snapshot && this.staging !== null) this.removedBySnapshot.push(...this.copy.replaceWith(this.staging));
    this.staging = null;
    this.lastVersion = Math.max(this.lastVersion, this.syncVersion);
    this.resetSync();
    this.lastOffset = Math.max(this.lastOffset, offset);
    this.syncing = false;
  }

  private resetSync(): void {
    this.syncFrames = 0;
    this.syncBytes = 0;
    this.syncVersion = 0;
    this.syncKeys = new Set();
  }

  /** A gap: events were lost between lastOffset and this one. Ask for the delta (or, from a broker with a log, the
   * replay). */
  private startResume(): void {
    this.resumes += 1;
    this.syncing = true;
    this.options.requestResume(this.lastOffset);
  }
}
