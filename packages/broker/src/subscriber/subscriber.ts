import {
  encodeOffsetError,
  ErrorCode,
  type SubscriberCounters,
  type SubscriberReport,
} from '@state-divergence/protocol';
import { errorMessage } from '@state-divergence/runtime';
import { Backfill, type PageResult } from './backfill.js';
import { EventQueue } from './event-queue.js';
import { FULL_QUEUE_POLICIES, type FullQueuePolicy, type FullQueueSubject } from './full-queue.js';
import { PendingDigests } from './pending-digests.js';
import { ResyncDelta, type Lag } from './resync-delta.js';
import type { SubscriberOptions } from './subscriber-options.js';
import type { SubscriberStats } from './subscriber-stats.js';
import { SubscriberWriter, type WriteSource } from './writer.js';

/**
 * One subscription: its bounded queue, and what its next write holds. Its writer (writer.ts)
 * decides when that write goes out; its queue policy (full-queue.ts) what a full queue does.
 *
 * Live, events are queued and written in batches, each pending digest right behind the events
 * queued before it was asked for (pending-digests.ts).
 *
 * Lagged (a full queue under `resync`, or a RESUME without a log): the queue is discarded and the
 * subscriber marked at the last offset handed to its stream. While lagged it costs O(1) memory:
 * new events are not queued. When its stream takes writes again, it gets LAG{from, to}, a delta
 * from the compacted table, SYNC_END, and then live events (the frames and what they cost:
 * resync-delta.ts).
 *
 * Back-filling (a broker with a log): a replay (an offset or earliest start, a RESUME) or a full
 * queue under `backfill` puts the subscriber in a back-filling state: live events are not queued
 * (O(1) memory), and its writer reads the log one page at a time after its last written offset
 * (backfill.ts). When it has written up to the head it rejoins the live queue in the same tick, so
 * nothing is lost or sent twice, and nobody waits for it.
 */
export class Subscriber implements FullQueueSubject, WriteSource {
  readonly name: string;
  readonly stats: SubscriberStats;
  private readonly queue = new EventQueue();
  private readonly writer: SubscriberWriter;
  private readonly fullQueue: FullQueuePolicy;
  private readonly digests = new PendingDigests();
  private readonly resync: ResyncDelta;
  /** Set while the writer reads the log instead of the live queue. */
  private backfill: Backfill | undefined;
  private writtenThrough = 0;
  private dropsInRun = 0;
  endedEarly: string | null = null;

  constructor(readonly options: SubscriberOptions) {
    this.name = options.name;
    this.stats = options.stats;
    this.fullQueue = FULL_QUEUE_POLICIES[options.queuePolicy];
    this.resync = new ResyncDelta(options.table, options.headOffset, options.stats.costs);
    this.writer = new SubscriberWriter(this, options);
  }

  get queued(): number {
    return this.queue.size;
  }

  get idle(): boolean {
    return this.writer.idle && this.queued === 0 && !this.resync.pending && this.backfill === undefined;
  }

  get hasRoom(): boolean {
    if (this.endedEarly !== null || this.resync.pending || this.backfill !== undefined) return true;
    return this.queued < this.options.queueCapacity;
  }

  /** The back-fill under way, if any (its pages and events so far): tests check the memory bound on it. */
  get backfilling(): Pick<Backfill, 'from' | 'pages' | 'events' | 'largestPage'> | undefined {
    return this.backfill;
  }

  // What its queue policy (FullQueueSubject) and its writer (WriteSource) read, documented in those
  // interfaces, as are the methods they call further down: evictOldest, discardQueue, readLog,
  // markLagged, endWithError, gather, writeFailed.

  get ended(): boolean {
    return this.endedEarly !== null;
  }

  get lastWritten(): number {
    return this.writtenThrough;
  }

  get turnDue(): boolean {
    return this.writer.turnDue;
  }

  get oldestQueued(): number | undefined {
    return this.queue.oldestOffset;
  }

  get awaitsMoreThanEvents(): boolean {
    return this.digests.boundary !== undefined || this.resync.pending || this.backfill !== undefined;
  }

  /** Starts the stream at `offset` (the snapshot or delta already sent up to it). */
  startAt(offset: number, frames: Buffer[]): void {
    this.stats.subscribed(offset);
    this.writtenThrough = offset;
    this.sendControl(...frames);
  }

  /**
   * Starts the stream after `after` (an offset or earliest start on a broker with a log):
   * live from now on, its writer first reading the log's events after `after` up to the head.
   */
  replayFrom(after: number): void {
    this.stats.subscribed(after);
    this.writtenThrough = after;
    // Everything up to the head is this subscription's to receive, from the log.
    this.stats.lastAccepted = this.options.headOffset();
    this.readLog(after);
  }

  /** Queues an encoded event. Returns false only when the event must be dropped (its queue policy refused it). */
  offer(offset: number, event: Buffer): boolean {
    if (this.endedEarly !== null || this.resync.pending) return true;
    if (this.backfill !== undefined) {
      // In the log, below the head the writer reads towards.
      this.stats.lastAccepted = offset;
      return true;
    }
    if (this.queued >= this.options.queueCapacity) {
      const outcome = this.fullQueue.onFull(this, offset);
      if (outcome !== 'room') return outcome === 'taken';
    } else {
      this.endDropRun(offset);
    }
    if (this.queued === 0) this.writer.queueStarted();
    this.queue.push(offset, event);
    this.stats.lastAccepted = offset;
    if (this.queued > this.stats.maxQueued) this.stats.maxQueued = this.queued;
    this.writer.schedule();
    // Its write is ready but waits for the next turn, which a burst of publisher reads (all
    // within microtasks) would never give it: the queue would fill with the writer idle.
    if (this.writer.turnDue && this.queued >= this.writer.halfQueue) this.options.onTurnDue();
    return true;
  }

  /** At-most-once: this offset is lost for this subscriber only, and nobody tells it. Logged once per run of drops. */
  drop(offset: number): void {
    if (this.dropsInRun === 0) {
      const { queuePolicy: policy, logger } = this.options;
      logger.info({ subscriber: this.name, policy, firstOffset: offset, queued: this.queued }, 'drops started');
      this.stats.mark('drops started', offset);
    }
    this.dropsInRun += 1;
    this.stats.drops.add(offset);
  }

  evictOldest(): void {
    this.queue.evictOldest();
  }

  discardQueue(): number[] {
    return this.queue.clear();
  }

  /** The client saw a gap and asks for everything after `fromOffset`. */
  resume(fromOffset: number): void {
    this.stats.resumes += 1;
    this.stats.mark('resume requested', fromOffset);
    this.options.logger.info({ subscriber: this.name, fromOffset }, 'resume requested');
    // With a log, the events themselves; without one, a delta from the compacted table.
    if (this.options.log !== undefined) this.readLog(Math.min(fromOffset, this.writtenThrough));
    else this.markLagged({ from: Math.min(fromOffset, this.writtenThrough), signal: false });
  }

  /** Answers a DIGEST_REQUEST right after exactly the events queued before it (see PendingDigests). */
  requestDigest(build: () => Buffer): void {
    this.digests.add(this.stats.lastAccepted, build, this.resync.pending);
    this.writer.pump();
  }

  sendControl(...frames: Buffer[]): void {
    if (this.endedEarly !== null) return;
    this.writer.send(frames);
  }

  end(reason: string, level: 'warn' | 'debug' = 'warn'): void {
    if (this.endedEarly !== null) return;
    this.endedEarly = reason;
    this.stats.endedEarly = reason;
    this.writer.stop();
    this.queue.clear();
    this.digests.clear();
    this.options.logger[level]({ subscriber: this.name, reason }, 'subscriber ended');
    this.options.onRoom();
    this.options.onEnd();
  }

  endWithError(message: string, error: Buffer, at: number): void {
    this.end(message, 'debug');
    this.stats.disconnectedAt = at;
    this.options.farewell(error);
  }

  writeFailed(error: unknown): void {
    this.end(`write failed: ${errorMessage(error)}`);
  }

  counters(): SubscriberCounters {
    return this.stats.counters(this.queued);
  }

  report(): SubscriberReport {
    return this.stats.report(this.queued);
  }

  private endDropRun(offset: number): void {
    if (this.dropsInRun === 0) return;
    const { queuePolicy: policy, logger } = this.options;
    logger.info({ subscriber: this.name, policy, dropped: this.dropsInRun, resumedAt: offset }, 'drops ended');
    this.stats.mark('drops ended', offset);
    this.dropsInRun = 0;
  }

  /**
   * Switches the writer to the log after `after`. What the queue held is in the log after
   * `after` too, so it is let go, not discarded; the digests waiting on it still hold: the
   * same events reach the subscriber, from the log.
   */
  readLog(after: number): void {
    const log = this.options.log;
    if (log === undefined) throw new Error(`${this.name}: reading the log, but the broker keeps none`);
    this.backfill = new Backfill(log, after, this.options.batchMaxEvents);
    this.queue.clear();
    this.options.onRoom();
    this.writer.pump();
  }

  markLagged(lag: Lag): void {
    if (this.resync.mark(lag)) {
      const fields = { subscriber: this.name, from: lag.from, discarded: this.queued, head: this.options.headOffset() };
      this.options.logger.info(fields, lag.signal ? 'lagged' : 'resuming');
      if (lag.signal) this.stats.mark('lagged', lag.from);
    }
    this.stats.discarded += this.queued;
    this.queue.clear();
    this.digests.invalidate();
    this.options.onRoom();
    this.writer.pump();
  }

  gather(parts: Buffer[]): number | null {
    const events = this.backfill === undefined ? undefined : this.takePage(parts, this.backfill);
    if (events !== undefined) return events;
    const delta = this.takeDelta();
    if (delta === undefined) return this.takeEvents(parts);
    parts.push(...delta, ...this.dueDigests());
    return 0;
  }

  /**
   * Under a back-fill: the digests already due, the next page of the log and the digests
   * due right behind it. Returns the events taken; undefined when the writer has caught up
   * (it is live again, in this same tick); null when the subscription ended.
   */
  private takePage(parts: Buffer[], backfill: Backfill): number | undefined | null {
    parts.push(...this.digests.takeDue(backfill.after + 1));
    let page: PageResult;
    try {
      page = backfill.next(this.options.headOffset(), this.digests.boundary);
    } catch (error) {
      this.end(`reading the log failed: ${errorMessage(error)}`);
      return null;
    }
    switch (page.kind) {
      case 'caughtUp': {
        const { from, after: to, pages, events, largestPage, startedAt } = backfill;
        const fields = { subscriber: this.name, from, to, pages, events, largestPage, ms: Date.now() - startedAt };
        this.options.logger.info(fields, 'back-fill caught up');
        this.backfill = undefined;
        return undefined;
      }
      case 'tooOld':
        this.refuseTooOld(backfill.after, page.oldest);
        return null;
      case 'page':
        parts.push(...page.frames, ...this.digests.takeDue(page.lastOffset + 1));
        this.writtenThrough = page.lastOffset;
        this.stats.replayedEvents += page.frames.length;
        this.stats.replayBytes += page.bytes;
        return page.frames.length;
    }
  }

  /**
   * Retention discarded an event this subscriber still needs (it read too slowly): ERROR
   * tooOld with the oldest retained offset, after what is in flight, then the end of the
   * stream. Nothing after `after` reached it (disconnectedAt, as a slow consumer's).
   */
  private refuseTooOld(after: number, oldest: number): void {
    const message =
      `${this.name} needs the events after ${after}, but the log keeps only offsets from ${oldest} on: ` +
      'subscribe again with a snapshot';
    this.stats.disconnects += 1;
    this.options.logger.warn({ subscriber: this.name, after, oldest }, 'too old to back-fill');
    this.endWithError(message, encodeOffsetError(ErrorCode.tooOld, oldest, message), after);
  }

  /** The pending resync's frames (see ResyncDelta.take), if any: the stream then stands at the head. */
  private takeDelta(): Buffer[] | undefined {
    const delta = this.resync.take();
    if (delta === undefined) return undefined;
    const { from, head, keys } = delta;
    this.options.logger.info({ subscriber: this.name, from, head, keys }, 'delta sent');
    this.stats.mark('delta sent', delta.head);
    this.stats.lastAccepted = delta.head;
    this.writtenThrough = delta.head;
    return delta.frames;
  }

  /**
   * Moves up to batchMaxEvents events into `parts`. A batch stops at the first
   * pending digest's boundary; the digest goes in right there, and the batch
   * carries on with the events queued after it. Returns how many events it took.
   */
  private takeEvents(parts: Buffer[]): number {
    let taken = 0;
    for (;;) {
      const batch = this.queue.take(this.options.batchMaxEvents - taken, this.digests.boundary);
      if (batch !== undefined) {
        parts.push(...batch.frames);
        taken += batch.frames.length;
        this.writtenThrough = batch.lastOffset;
      }
      const due = this.dueDigests();
      parts.push(...due);
      if (due.length === 0 || taken === this.options.batchMaxEvents) break;
    }
    if (taken > 0) this.options.onRoom();
    return taken;
  }

  private dueDigests(): Buffer[] {
    return this.resync.pending ? [] : this.digests.takeDue(this.queue.oldestOffset);
  }
}
