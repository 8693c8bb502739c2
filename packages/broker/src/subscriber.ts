import type { SubscriberCounters, SubscriberReport } from '@state-divergence/protocol';
import type { Logger } from '@state-divergence/runtime';
import { DropLog } from './drop-log.js';

export interface SubscriberOptions {
  name: string;
  capacity: number;
  batchMaxEvents: number;
  write: (bytes: Uint8Array) => Promise<void>;
  /** Called whenever the queue shrinks, so a paused publisher read can resume. */
  onRoom: () => void;
  logger: Logger;
}

/**
 * One subscriber's bounded queue and its writer. The writer sends everything
 * queued (up to batchMaxEvents) in one write: with this QUIC library the cost is
 * per packet, not per byte, so batching is what lets five consumers keep up.
 * Only this subscriber's writer ever awaits its stream: a frozen peer parks this
 * loop and nothing else.
 */
export class Subscriber {
  readonly name: string;
  private readonly queue: Buffer[] = [];
  private queueHead = 0;
  private writing = false;
  private delivered = 0;
  private maxQueued = 0;
  private lastAccepted = 0;
  private readonly drops = new DropLog();
  private dropsInRun = 0;
  endedEarly: string | null = null;

  constructor(private readonly options: SubscriberOptions) {
    this.name = options.name;
  }

  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  get hasRoom(): boolean {
    return this.endedEarly !== null || this.queued < this.options.capacity;
  }

  /** Queues an encoded event. A full queue refuses it (the caller decides: drop or wait). */
  offer(offset: number, event: Buffer): boolean {
    if (this.endedEarly !== null) return true;
    if (this.queued >= this.options.capacity) return false;
    if (this.dropsInRun > 0) {
      this.options.logger.info({ subscriber: this.name, dropped: this.dropsInRun, resumedAt: offset }, 'drops ended');
      this.dropsInRun = 0;
    }
    this.queue.push(event);
    this.lastAccepted = offset;
    if (this.queued > this.maxQueued) this.maxQueued = this.queued;
    this.pump();
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

  end(reason: string): void {
    if (this.endedEarly !== null) return;
    this.endedEarly = reason;
    this.queue.length = 0;
    this.queueHead = 0;
    this.options.logger.warn({ subscriber: this.name, reason }, 'subscriber ended');
    this.options.onRoom();
  }

  counters(): SubscriberCounters {
    return { queued: this.queued, delivered: this.delivered, dropped: this.drops.count, lastAccepted: this.lastAccepted };
  }

  report(): SubscriberReport {
    return { ...this.counters(), droppedRanges: this.drops.ranges, maxQueued: this.maxQueued, endedEarly: this.endedEarly };
  }

  private pump(): void {
    if (this.writing || this.queued === 0 || this.endedEarly !== null) return;
    this.writing = true;
    const end = Math.min(this.queue.length, this.queueHead + this.options.batchMaxEvents);
    const batch = this.queue.slice(this.queueHead, end);
    this.queueHead = end;
    if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    this.options.onRoom();
    const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch);
    this.options.write(bytes).then(
      () => {
        this.delivered += batch.length;
        this.writing = false;
        this.pump();
      },
      (error: unknown) => {
        this.writing = false;
        this.end(`write failed: ${(error as Error)?.message ?? String(error)}`);
      },
    );
  }
}
