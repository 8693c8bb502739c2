import type { SubscriberOptions } from './subscriber-options.js';

/** What a writer asks of the subscription it writes for (the Subscriber). */
export interface WriteSource {
  /** The subscription ended: nothing more is written. */
  readonly ended: boolean;
  /** Events waiting in the live queue. */
  readonly queued: number;
  /** Something besides live events waits to go out (a digest, a delta, a back-fill page): it is never held. */
  readonly awaitsMoreThanEvents: boolean;
  /**
   * Appends the rest of the next write to `parts` (its control frames are there already): a back-fill
   * page, a delta or a batch of events, each digest right behind its events. Returns the events among
   * them; null when the subscription ended.
   */
  gather(parts: Buffer[]): number | null;
  /** The stream refused a write: the subscription ends. */
  writeFailed(error: unknown): void;
}

/**
 * One subscriber's writer: when its next write goes out, and its one write in flight. It batches as
 * a group commit does: an idle writer writes on this turn's end (nothing is waited for beyond what
 * the same turn queues), and while its write is in flight whatever is published queues; when the
 * write completes, everything queued (up to batchMaxEvents events) goes out in one write. So a writer
 * at a trickle writes each publisher batch as it comes, and one that is busy sends full batches: the
 * batch is as large as the transport is slow, with no timer. With this QUIC library the cost is per
 * packet, not per byte, so batching is what lets many consumers keep up. Only this writer ever awaits
 * its stream: a frozen peer parks this writer and nothing else.
 *
 * The write in flight is the QUIC stream write (`WritableStreamDefaultWriter.write`): quiche takes
 * the bytes and the connection hands its datagrams to the UDP socket in the same turn, so the write
 * completes within microtasks when the stream has room, and stays in flight while quiche's flow or
 * congestion control has none (a slow or frozen peer, a loaded machine).
 */
export class SubscriberWriter {
  /** Frames that are not events (snapshot, heartbeat): never counted, never dropped, first in the next write. */
  private control: Buffer[] = [];
  private writing = false;
  /** A pump is due on the next turn of the event loop (setImmediate). */
  private pumpDue = false;
  /** Set while queued events are held for more (coalesceMs); the pump runs when it fires. */
  private holdTimer: NodeJS.Timeout | undefined;
  /** When the queue last went from empty to not (performance.now()): how long its oldest event has waited. */
  private heldSince = 0;
  /**
   * Half the queue: a writer whose turn is due with this many events queued asks for it
   * (onTurnDue), and events are never held for more (schedule) past it.
   */
  readonly halfQueue: number;

  constructor(
    private readonly source: WriteSource,
    private readonly options: Pick<
      SubscriberOptions,
      'queueCapacity' | 'batchMaxEvents' | 'coalesceMs' | 'stats' | 'write'
    >,
  ) {
    this.halfQueue = Math.ceil(options.queueCapacity / 2);
  }

  /** Its next write waits for the next turn of the event loop. */
  get turnDue(): boolean {
    return this.pumpDue;
  }

  /** No write in flight and no control frame waiting. */
  get idle(): boolean {
    return !this.writing && this.control.length === 0;
  }

  /** The live queue went from empty to not: its oldest event waits from now on. */
  queueStarted(): void {
    this.heldSince = performance.now();
  }

  /** Frames that go out in the next write, ahead of anything else; written now. */
  send(frames: Buffer[]): void {
    this.control.push(...frames);
    this.pump();
  }

  /** The subscription ended: no hold fires, no control frame goes out. */
  stop(): void {
    clearTimeout(this.holdTimer);
    this.control = [];
  }

  /**
   * The group commit's turn: the write goes out on the next turn of the event loop rather than at
   * once, also after a write completes, so every event decoded in this turn (a publisher batch, or
   * every datagram read in one poll of the socket) goes out in one write instead of one for the first
   * event and one for the rest. A write completes within microtasks when the stream has room, so
   * pumping at once took the few events queued so far, and under load the broker wrote ~1.6 KB writes
   * in ~1 KB datagrams (measured: lossless fan-out to 3 at 16,384-byte datagrams went from ~6.5 k to
   * ~36 k events/s per consumer, writes from 1.6 KB to 26 KB).
   *
   * With coalesceMs (--coalesce-ms, 0 by default), events are also held until the oldest has waited
   * that long (or a full batch is queued: batchMaxEvents, or half the queue, so that holding never
   * puts a queue at risk of overflowing), so a trickle of publisher batches goes out in fewer, fuller
   * writes. Under load the queue is not empty when a write completes, its oldest event has waited
   * already, and the next write goes out at once: holding only ever delays a subscriber that is
   * keeping up.
   */
  schedule(): void {
    if (this.writing || this.pumpDue) return;
    const queued = this.source.queued;
    // A write that completed with nothing behind it: no hold to start (its timer would fire on nothing).
    if (queued === 0 && !this.awaitsMoreThanEvents()) return;
    const { coalesceMs, batchMaxEvents } = this.options;
    // Only events are held: a control frame, a digest, a delta or a back-fill page goes out now.
    if (coalesceMs > 0 && !this.awaitsMoreThanEvents() && queued < Math.min(batchMaxEvents, this.halfQueue)) {
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

  /** Gathers the next write (control frames first, then what the source has) and hands it to the stream. */
  pump(): void {
    if (this.writing || this.source.ended) return;
    const parts = this.control;
    this.control = [];
    const events = this.source.gather(parts);
    if (events === null || parts.length === 0) return;
    // This write takes what a pending hold was waiting for: its timer must not release the next batch early.
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.writing = true;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const { stats } = this.options;
    const write = stats.writeStarted(bytes.length);
    this.options.write(bytes).then(
      () => {
        stats.writeEnded(write);
        stats.delivered += events;
        this.writing = false;
        this.schedule();
      },
      (error: unknown) => {
        stats.writeEnded(write);
        this.writing = false;
        this.source.writeFailed(error);
      },
    );
  }

  private awaitsMoreThanEvents(): boolean {
    return this.control.length > 0 || this.source.awaitsMoreThanEvents;
  }

  private readonly pumpNow = (): void => {
    this.pumpDue = false;
    this.pump();
  };

  private readonly releaseHold = (): void => {
    this.holdTimer = undefined;
    this.pump();
  };
}
