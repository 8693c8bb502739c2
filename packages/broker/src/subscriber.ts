import type { SubscriberCounters, SubscriberReport } from '@state-divergence/protocol';
import { errorMessage, type Logger } from '@state-divergence/runtime';
import type { CompactedTable } from './compacted-table.js';
import { DropLog } from './drop-log.js';
import { Recovery, type Lag } from './recovery.js';

/** What a full queue means: lossy drops, lossless blocks (the Topic waits), resync lags. */
export type OverflowPolicy = 'drop' | 'block' | 'resync';

export interface SubscriberOptions {
  name: string;
  capacity: number;
  batchMaxEvents: number;
  overflow: OverflowPolicy;
  table: CompactedTable;
  headOffset: () => number;
  write: (bytes: Uint8Array) => Promise<void>;
  /** Called whenever the queue shrinks, so a paused publisher read can resume. */
  onRoom: () => void;
  logger: Logger;
}

/**
 * One subscriber's bounded queue and its writer. The writer sends everything
 * queued (up to batchMaxEvents) in one write: with this QUIC library the cost is
 * per packet, not per byte, so batching is what lets many consumers keep up.
 * Only this subscriber's writer ever awaits its stream: a frozen peer parks this
 * loop and nothing else.
 *
 * Resync: on overflow the queue is discarded and the subscriber marked lagged
 * at the last offset handed to its stream. While lagged it costs O(1) memory:
 * new events are not queued. When its stream takes writes again, it gets
 * LAG{from, to}, a delta from the compacted table, SYNC_END, and then live events
 * (the frames and what they cost: recovery.ts).
 */
export class Subscriber {
  readonly name: string;
  private queue: Buffer[] = [];
  private queueOffsets: number[] = [];
  private queueHead = 0;
  /** Frames that are not events (snapshot, heartbeat, digest): never counted, never dropped. */
  private control: Buffer[] = [];
  private writing = false;
  private pumpScheduled = false;
  /** A DIGEST waiting until everything queued before the request has been written. */
  private digestRequested: (() => Buffer) | undefined;
  private readonly recovery: Recovery;
  private lastWritten = 0;
  private delivered = 0;
  private maxQueued = 0;
  private lastAccepted = 0;
  private readonly drops = new DropLog();
  private dropsInRun = 0;
  private resumes = 0;
  private discarded = 0;
  endedEarly: string | null = null;

  constructor(private readonly options: SubscriberOptions) {
    this.name = options.name;
    this.recovery = new Recovery(options.table, options.headOffset);
  }

  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  get idle(): boolean {
    return !this.writing && this.queued === 0 && this.control.length === 0 && !this.recovery.pending;
  }

  get hasRoom(): boolean {
    return this.endedEarly !== null || this.recovery.pending || this.queued < this.options.capacity;
  }

  /** Starts the stream at `offset` (the snapshot or delta already sent up to it). */
  startAt(offset: number, frames: Buffer[]): void {
    this.lastAccepted = offset;
    this.lastWritten = offset;
    this.sendControl(...frames);
  }

  /** Queues an encoded event. Returns false only when the event must be dropped (lossy) or waited for (lossless). */
  offer(offset: number, event: Buffer): boolean {
    if (this.endedEarly !== null || this.recovery.pending) return true;
    if (this.queued >= this.options.capacity) {
      if (this.options.overflow !== 'resync') return false;
      this.markLagged({ from: this.lastWritten, signal: true });
      return true;
    }
    if (this.dropsInRun > 0) {
      this.options.logger.info({ subscriber: this.name, dropped: this.dropsInRun, resumedAt: offset }, 'drops ended');
      this.dropsInRun = 0;
    }
    this.queue.push(event);
    this.queueOffsets.push(offset);
    this.lastAccepted = offset;
    if (this.queued > this.maxQueued) this.maxQueued = this.queued;
    this.schedulePump();
    return true;
  }

  /** At-most-once: the new event is lost for this subscriber only, and nobody tells it. */
  drop(offset: number): void {
    if (this.dropsInRun === 0) {
      this.options.logger.info({ subscriber: this.name, firstOffset: offset, queued: this.queued }, 'drops started');
    }
    this.dropsInRun += 1;
    this.drops.add(offset);
  }

  /** The client saw a gap and asks for everything after `fromOffset`. */
  resume(fromOffset: number): void {
    this.resumes += 1;
    this.options.logger.info({ subscriber: this.name, fromOffset }, 'resume requested');
    this.markLagged({ from: Math.min(fromOffset, this.lastWritten), signal: false });
  }

  /**
   * Answers a DIGEST_REQUEST after every event queued before it, computed when it
   * is written: the digest then describes exactly the stream this subscriber was sent.
   */
  requestDigest(build: () => Buffer): void {
    this.digestRequested = build;
    this.pump();
  }

  sendControl(...frames: Buffer[]): void {
    if (this.endedEarly !== null) return;
    this.control.push(...frames);
    this.pump();
  }

  end(reason: string, level: 'warn' | 'debug' = 'warn'): void {
    if (this.endedEarly !== null) return;
    this.endedEarly = reason;
    this.clearQueue();
    this.control = [];
    this.options.logger[level]({ subscriber: this.name, reason }, 'subscriber ended');
    this.options.onRoom();
  }

  counters(): SubscriberCounters {
    return { queued: this.queued, delivered: this.delivered, dropped: this.drops.count, lastAccepted: this.lastAccepted };
  }

  report(): SubscriberReport {
    const costs = this.recovery.costs;
    return {
      ...this.counters(),
      droppedRanges: this.drops.ranges,
      maxQueued: this.maxQueued,
      endedEarly: this.endedEarly,
      lags: costs.lags,
      resumes: this.resumes,
      resyncBytes: costs.resyncBytes,
      resyncFrames: costs.resyncFrames,
      fullSnapshotBytes: costs.fullSnapshotBytes,
      discarded: this.discarded,
    };
  }

  private markLagged(lag: Lag): void {
    if (this.recovery.mark(lag)) {
      this.options.logger.info({ subscriber: this.name, from: lag.from, discarded: this.queued, head: this.options.headOffset() }, lag.signal ? 'lagged' : 'resuming');
    }
    this.discarded += this.queued;
    this.clearQueue();
    this.options.onRoom();
    this.pump();
  }

  private clearQueue(): void {
    this.queue = [];
    this.queueOffsets = [];
    this.queueHead = 0;
  }

  /** The pending recovery's frames (see Recovery.take), if any: the stream then stands at the head. */
  private takeRecovery(): Buffer[] | undefined {
    const recovery = this.recovery.take();
    if (recovery === undefined) return undefined;
    this.options.logger.info({ subscriber: this.name, from: recovery.from, head: recovery.head, keys: recovery.keys }, 'delta sent');
    this.lastAccepted = recovery.head;
    this.lastWritten = recovery.head;
    return recovery.frames;
  }

  /**
   * Writes on the next turn of the event loop rather than at once: every event
   * decoded from the same QUIC read (a publisher batch) then goes out in one
   * write instead of one write for the first event and one for the rest.
   * With this library the cost is per packet, so this halves the packets.
   */
  private schedulePump(): void {
    if (this.pumpScheduled || this.writing) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.writing || this.endedEarly !== null) return;
    const parts = this.control;
    this.control = [];
    let events = 0;
    const recovery = this.takeRecovery();
    if (recovery !== undefined) {
      parts.push(...recovery);
    } else if (this.queued > 0) {
      const end = Math.min(this.queue.length, this.queueHead + this.options.batchMaxEvents);
      for (let i = this.queueHead; i < end; i++) parts.push(this.queue[i]!);
      events = end - this.queueHead;
      this.lastWritten = this.queueOffsets[end - 1]!;
      this.queueHead = end;
      if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueOffsets.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      this.options.onRoom();
    }
    if (this.digestRequested !== undefined && this.queueHead === this.queue.length && !this.recovery.pending) {
      parts.push(this.digestRequested());
      this.digestRequested = undefined;
    }
    if (parts.length === 0) return;
    this.writing = true;
    this.options.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts)).then(
      () => {
        this.delivered += events;
        this.writing = false;
        this.pump();
      },
      (error: unknown) => {
        this.writing = false;
        this.end(`write failed: ${errorMessage(error)}`);
      },
    );
  }
}
