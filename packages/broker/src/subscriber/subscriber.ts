import { encodeError, encodeOffsetError, ErrorCode, type SubscriberCounters, type SubscriberReport } from '@state-divergence/protocol';
import { errorMessage } from '@state-divergence/runtime';
import { Backfill, type PageResult } from './backfill.js';
import { EventQueue } from './event-queue.js';
import { PendingDigests } from './pending-digests.js';
import { ResyncDelta, type Lag } from './resync-delta.js';
import type { SubscriberStats } from './subscriber-stats.js';
import type { SubscriberOptions } from './subscriber-options.js';

/**
 * One subscription's bounded queue and its writer. The writer sends everything
 * queued (up to batchMaxEvents) in one write: with this QUIC library the cost is
 * per packet, not per byte, so batching is what lets many consumers keep up.
 * Only this subscriber's writer ever awaits its stream: a frozen peer parks this
 * loop and nothing else.
 *
 * Resync: on overflow the queue is discarded and the subscriber marked lagged
 * at the last offset handed to its stream. While lagged it costs O(1) memory:
 * new events are not queued. When its stream takes writes again, it gets
 * LAG{from, to}, a delta from the compacted table, SYNC_END, and then live events
 * (the frames and what they cost: resync-delta.ts).
 *
 * Back-fill (a broker with a log): a replay (an offset or earliest start, a RESUME) or a
 * full queue puts the subscriber in a back-filling state: live events are not queued
 * (O(1) memory), and its writer reads the log one page at a time after its last written
 * offset (backfill.ts). When it has written up to the head it rejoins the live queue in
 * the same tick, so nothing is lost or sent twice, and nobody waits for it.
 */
export class Subscriber {
  readonly name: string;
  private readonly queue = new EventQueue();
  /** Frames that are not events (snapshot, heartbeat): never counted, never dropped. */
  private control: Buffer[] = [];
  private writing = false;
  /** A pump is due on the next turn of the event loop (setImmediate). */
  private pumpDue = false;
  /** Set while queued events are held for more (coalesceMs); the pump runs when it fires. */
  private holdTimer: NodeJS.Timeout | undefined;
  /** When the queue last went from empty to not (performance.now()): how long its oldest event has waited. */
  private heldSince = 0;
  private readonly digests = new PendingDigests();
  private readonly resync: ResyncDelta;
  /** Set while the writer reads the log instead of the live queue. */
  private backfill: Backfill | undefined;
  private readonly stats: SubscriberStats;
  private lastWritten = 0;
  private dropsInRun = 0;
  endedEarly: string | null = null;

  constructor(private readonly options: SubscriberOptions) {
    this.name = options.name;
    this.stats = options.stats;
    this.resync = new ResyncDelta(options.table, options.headOffset, options.stats.costs);
  }

  /**
   * Half the queue: a writer whose turn is due with this many events queued asks for it
   * (onTurnDue), and events are never held for more (schedulePump) past it.
   */
  private get halfQueue(): number {
    return Math.max(1, Math.ceil(this.options.capacity / 2));
  }

  get queued(): number {
    return this.queue.size;
  }

  get idle(): boolean {
    return !this.writing && this.queued === 0 && this.control.length === 0 && !this.resync.pending && this.backfill === undefined;
  }

  get hasRoom(): boolean {
    return this.endedEarly !== null || this.resync.pending || this.backfill !== undefined || this.queued < this.options.capacity;
  }

  /** The back-fill under way, if any (its pages and events so far): tests check the memory bound on it. */
  get backfilling(): Pick<Backfill, 'from' | 'pages' | 'events' | 'largestPage'> | undefined {
    return this.backfill;
  }

  /** Starts the stream at `offset` (the snapshot or delta already sent up to it). */
  startAt(offset: number, frames: Buffer[]): void {
    this.stats.subscribed(offset);
    this.lastWritten = offset;
    this.sendControl(...frames);
  }

  /**
   * Starts the stream after `after` (an offset or earliest start on a broker with a log):
   * live from now on, its writer first reading the log's events after `after` up to the head.
   */
  replayFrom(after: number): void {
    this.stats.subscribed(after);
    this.lastWritten = after;
    // Everything up to the head is this subscription's to receive, from the log.
    this.stats.lastAccepted = this.options.headOffset();
    this.readLog(after);
  }

  /** Queues an encoded event. Returns false only when the event must be dropped (drop-new) or waited for (lossless). */
  offer(offset: number, event: Buffer): boolean {
    if (this.endedEarly !== null || this.resync.pending) return true;
    if (this.backfill !== undefined) {
      // In the log, below the head the writer reads towards.
      this.stats.lastAccepted = offset;
      return true;
    }
    if (this.queued >= this.options.capacity) {
      switch (this.options.queuePolicy) {
        case 'backfill':
          this.stats.backfills += 1;
          // What resync would have weighed against its delta: the whole table, as of this recovery.
          this.stats.costs.fullSnapshotBytes += this.options.table.fullSnapshotBytes;
          this.options.logger.info({ subscriber: this.name, from: this.lastWritten, queued: this.queued, head: offset }, 'queue full: back-filling from the log');
          this.readLog(this.lastWritten);
          this.stats.lastAccepted = offset;
          return true;
        case 'resync':
          this.markLagged({ from: this.lastWritten, signal: true });
          return true;
        case 'disconnect':
          this.disconnect(offset);
          return true;
        case 'drop-oldest': {
          // A ring: the newest events stay, so a consumer that wakes gets the most recent changes.
          const oldest = this.queue.oldestOffset;
          if (oldest === undefined) return false; // capacity 0: nothing to overwrite
          this.drop(oldest);
          this.queue.evictOldest();
          break;
        }
        default:
          // A write that completed while the queue was full is due: the rest of the burst must not all be dropped before it runs.
          if (this.pumpDue) this.options.onTurnDue();
          return false; // drop-new: the Topic drops it; block: the Topic waited for room first
      }
    } else {
      this.endDropRun(offset);
    }
    if (this.queued === 0) this.heldSince = performance.now();
    this.queue.push(offset, event);
    this.stats.lastAccepted = offset;
    if (this.queued > this.stats.maxQueued) this.stats.maxQueued = this.queued;
    this.schedulePump();
    // Its write is ready but waits for the next turn, which a burst of publisher reads (all
    // within microtasks) would never give it: the queue would fill with the writer idle.
    if (this.pumpDue && this.queued >= this.halfQueue) this.options.onTurnDue();
    return true;
  }

  /** At-most-once: this offset is lost for this subscriber only, and nobody tells it. Logged once per run of drops. */
  drop(offset: number): void {
    if (this.dropsInRun === 0) {
      this.options.logger.info({ subscriber: this.name, policy: this.options.queuePolicy, firstOffset: offset, queued: this.queued }, 'drops started');
      this.stats.mark('drops started', offset);
    }
    this.dropsInRun += 1;
    this.stats.drops.add(offset);
  }

  /** The client saw a gap and asks for everything after `fromOffset`. */
  resume(fromOffset: number): void {
    this.stats.resumes += 1;
    this.stats.mark('resume requested', fromOffset);
    this.options.logger.info({ subscriber: this.name, fromOffset }, 'resume requested');
    // With a log, the events themselves; without one, a delta from the compacted table.
    if (this.options.log !== undefined) this.readLog(Math.min(fromOffset, this.lastWritten));
    else this.markLagged({ from: Math.min(fromOffset, this.lastWritten), signal: false });
  }

  /** Answers a DIGEST_REQUEST right after exactly the events queued before it (see PendingDigests). */
  requestDigest(build: () => Buffer): void {
    this.digests.add(this.stats.lastAccepted, build, this.resync.pending);
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
    this.stats.endedEarly = reason;
    clearTimeout(this.holdTimer);
    this.queue.clear();
    this.control = [];
    this.digests.clear();
    this.options.logger[level]({ subscriber: this.name, reason }, 'subscriber ended');
    this.options.onRoom();
    this.options.onEnd();
  }

  counters(): SubscriberCounters {
    return this.stats.counters(this.queued);
  }

  report(): SubscriberReport {
    return this.stats.report(this.queued);
  }

  private endDropRun(offset: number): void {
    if (this.dropsInRun === 0) return;
    this.options.logger.info({ subscriber: this.name, policy: this.options.queuePolicy, dropped: this.dropsInRun, resumedAt: offset }, 'drops ended');
    this.stats.mark('drops ended', offset);
    this.dropsInRun = 0;
  }

  /**
   * Like Redis's client-output-buffer-limit or NATS's slow consumer: the
   * subscription ends with ERROR slowConsumer. What it had queued and never
   * handed to the stream, and the event that overflowed, are dropped for it; what
   * is in flight still arrives, then the ERROR. The name is free at once.
   */
  private disconnect(offset: number): void {
    const unsent = this.queue.clear();
    for (const dropped of unsent) this.stats.drops.add(dropped);
    this.stats.drops.add(offset);
    this.stats.disconnects += 1;
    this.stats.mark('disconnected', offset);
    const message = `slow consumer: ${this.name}'s queue of ${this.options.capacity} events was full at offset ${offset}; ${unsent.length + 1} events dropped, subscribe again`;
    this.options.logger.warn(
      { subscriber: this.name, firstOffset: unsent[0] ?? offset, lastOffset: offset, dropped: unsent.length + 1, disconnects: this.stats.disconnects },
      'slow consumer disconnected',
    );
    this.end(message, 'debug');
    this.stats.disconnectedAt = offset;
    this.options.farewell(encodeError(ErrorCode.slowConsumer, message));
  }

  /**
   * Switches the writer to the log after `after`. What the queue held is in the log after
   * `after` too, so it is let go, not discarded; the digests waiting on it still hold: the
   * same events reach the subscriber, from the log.
   */
  private readLog(after: number): void {
    const log = this.options.log;
    if (log === undefined) throw new Error(`${this.name}: reading the log, but the broker keeps none`);
    this.backfill = new Backfill(log, after, this.options.batchMaxEvents);
    this.queue.clear();
    this.options.onRoom();
    this.pump();
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
      case 'caughtUp':
        this.options.logger.info(
          { subscriber: this.name, from: backfill.from, to: backfill.after, pages: backfill.pages, events: backfill.events, largestPage: backfill.largestPage, ms: Date.now() - backfill.startedAt },
          'back-fill caught up',
        );
        this.backfill = undefined;
        return undefined;
      case 'tooOld':
        this.refuseTooOld(backfill.after, page.oldest);
        return null;
      case 'page':
        parts.push(...page.frames, ...this.digests.takeDue(page.lastOffset + 1));
        this.lastWritten = page.lastOffset;
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
    const message = `${this.name} needs the events after ${after}, but the log keeps only offsets from ${oldest} on: subscribe again with a snapshot`;
    this.stats.disconnects += 1;
    this.options.logger.warn({ subscriber: this.name, after, oldest }, 'too old to back-fill');
    this.end(message, 'debug');
    this.stats.disconnectedAt = after;
    this.options.farewell(encodeOffsetError(ErrorCode.tooOld, oldest, message));
  }

  private markLagged(lag: Lag): void {
    if (this.resync.mark(lag)) {
      this.options.logger.info({ subscriber: this.name, from: lag.from, discarded: this.queued, head: this.options.headOffset() }, lag.signal ? 'lagged' : 'resuming');
      if (lag.signal) this.stats.mark('lagged', lag.from);
    }
    this.stats.discarded += this.queued;
    this.queue.clear();
    this.digests.invalidate();
    this.options.onRoom();
    this.pump();
  }

  /** The pending recovery's frames (see ResyncDelta.take), if any: the stream then stands at the head. */
  private takeRecovery(): Buffer[] | undefined {
    const recovery = this.resync.take();
    if (recovery === undefined) return undefined;
    this.options.logger.info({ subscriber: this.name, from: recovery.from, head: recovery.head, keys: recovery.keys }, 'delta sent');
    this.stats.mark('delta sent', recovery.head);
    this.stats.lastAccepted = recovery.head;
    this.lastWritten = recovery.head;
    return recovery.frames;
  }

  /**
   * Writes on the next turn of the event loop rather than at once, also after a
   * write completes: every event decoded from the same QUIC read (a publisher
   * batch) then goes out in one write instead of one for the first event and one
   * for the rest. With this library the cost is per datagram, and a write
   * completes within microtasks: pumping at once took the few events queued so
   * far, and under load the broker wrote ~1.6 KB writes in ~1 KB datagrams
   * (measured: lossless fan-out to 3 at 16,384-byte datagrams went from ~6.5 k
   * to ~36 k events/s per consumer, writes from 1.6 KB to 26 KB).
   *
   * With coalesceMs, events are held until the oldest has waited that long (or a full batch is
   * queued: batchMaxEvents, or half the queue, so that holding never puts a queue at risk of
   * overflowing), so a trickle of publisher batches goes out in fewer, fuller writes. Under load the
   * queue is not empty when a write completes, its oldest event has waited already, and the next
   * write goes out at once: holding only ever delays a subscriber that is keeping up.
   */
  private schedulePump(): void {
    if (this.writing || this.pumpDue) return;
    // A write that completed with nothing behind it: no hold to start (its timer would fire on nothing).
    if (this.queued === 0 && !this.awaitsMoreThanEvents()) return;
    const { coalesceMs, batchMaxEvents } = this.options;
    // Only events are held: a control frame, a digest, a recovery or a back-fill page goes out now.
    if (coalesceMs > 0 && !this.awaitsMoreThanEvents() && this.queued < Math.min(batchMaxEvents, this.halfQueue)) {
      if (this.holdTimer !== undefined) return;
      const holdMs = coalesceMs - (performance.now() - this.heldSince);
      if (holdMs >= 1) {
        this.holdTimer = setTimeout(this.releaseHold, holdMs);
        return;
      }
    }
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.pumpDue = true;
    setImmediate(this.pumpNow);
  }

  private awaitsMoreThanEvents(): boolean {
    return this.control.length > 0 || this.digests.boundary !== undefined || this.resync.pending || this.backfill !== undefined;
  }

  private readonly pumpNow = (): void => {
    this.pumpDue = false;
    this.pump();
  };

  private readonly releaseHold = (): void => {
    this.holdTimer = undefined;
    this.pump();
  };

  /** Gathers the next write: control frames, then a recovery or a batch of events, with each digest right behind its events. */
  private pump(): void {
    if (this.writing || this.endedEarly !== null) return;
    const parts = this.control;
    this.control = [];
    let events = this.backfill === undefined ? undefined : this.takePage(parts, this.backfill);
    if (events === null) return;
    if (events === undefined) {
      const recovery = this.takeRecovery();
      if (recovery !== undefined) parts.push(...recovery, ...this.dueDigests());
      events = recovery === undefined ? this.takeEvents(parts) : 0;
    }
    if (parts.length === 0) return;
    // This write takes what a pending hold was waiting for: its timer must not release the next batch early.
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.writing = true;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const write = this.stats.writeStarted(bytes.length);
    this.options.write(bytes).then(
      () => {
        this.stats.writeEnded(write);
        this.stats.delivered += events;
        this.writing = false;
        this.schedulePump();
      },
      (error: unknown) => {
        this.stats.writeEnded(write);
        this.writing = false;
        this.end(`write failed: ${errorMessage(error)}`);
      },
    );
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
        this.lastWritten = batch.lastOffset;
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
