import {
  eventFrameBytes,
  SyncKind,
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
}

/**
 * Applies the broker's frames to the local copy and keeps the counters a
 * consumer can know by itself: applied events, last offset, lags, resumes,
 * syncs. It holds no transport: main.ts feeds it frames.
 */
export class StreamFollower {
  readonly copy = new LocalCopy();
  readonly latency = new LatencyLog();
  applied = 0;
  lastOffset: number;
  lags = 0;
  resumes = 0;
  readonly syncs: SyncRecord[] = [];
  syncing: boolean;
  private syncFrames = 0;
  private syncBytes = 0;
  private syncKeys = new Set<number>();

  constructor(private readonly options: FollowerOptions) {
    this.lastOffset = options.startOffset;
    this.syncing = options.awaitingSnapshot;
  }

  /** Returns an error description for a frame a subscriber must never receive. */
  handle(frame: Frame): string | undefined {
    switch (frame.type) {
      case 'event':
        this.copy.apply(frame.change);
        this.latency.record(wallClockMs(), frame.change.publishedAt);
        this.applied += 1;
        if (!this.options.detectGaps) this.lastOffset = frame.offset;
        else if (!this.syncing) {
          if (frame.offset === this.lastOffset + 1) this.lastOffset = frame.offset;
          else if (frame.offset > this.lastOffset + 1) this.startResume();
        }
        return undefined;
      case 'state':
        this.copy.apply(frame.change);
        this.syncFrames += 1;
        this.syncBytes += eventFrameBytes(frame.change.payloadLength);
        this.syncKeys.add(frame.change.key);
        return undefined;
      case 'syncEnd':
        this.syncs.push({
          kind: frame.kind === SyncKind.snapshot ? 'snapshot' : 'delta',
          at: wallClockMs(),
          frames: this.syncFrames,
          keys: this.syncKeys.size,
          bytes: this.syncBytes,
          offset: frame.offset,
        });
        this.syncFrames = 0;
        this.syncBytes = 0;
        this.syncKeys = new Set();
        this.lastOffset = Math.max(this.lastOffset, frame.offset);
        this.syncing = false;
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
   * A new subscription at `latest` whose WELCOME carried `headOffset`: it will
   * receive only what comes after. Returns the offsets skipped on the way,
   * [lastOffset + 1, headOffset], or undefined when none were. The local copy is
   * kept: that is what a naive informer does, and why it stays wrong.
   */
  rejoin(headOffset: number): [number, number] | undefined {
    const skipped: [number, number] | undefined = headOffset > this.lastOffset ? [this.lastOffset + 1, headOffset] : undefined;
    this.lastOffset = Math.max(this.lastOffset, headOffset);
    // A delta cut off by the disconnect will never end: the new stream starts live.
    this.syncing = false;
    this.syncFrames = 0;
    this.syncBytes = 0;
    this.syncKeys = new Set();
    return skipped;
  }

  /** A gap: events were lost between lastOffset and this one. Ask for the delta. */
  private startResume(): void {
    this.resumes += 1;
    this.syncing = true;
    this.options.requestResume(this.lastOffset);
  }
}
