import type { Socket } from 'node:net';
import type { LinkCounters } from '@state-divergence/protocol';
import type { CapMeter } from './cap-meter.js';
import { NODE_TIMERS, type Timers } from './delay-line.js';

/** What a chunk due within this much of now leaves with the batch (as DelayLine's slack). */
const TIMER_SLACK_MS = 1;

/** How the link treats the bytes that arrive now: read per chunk, so a reshape applies from the next one. */
export interface StreamPolicy {
  /** A partition: hold everything until the heal. */
  partitioned(): boolean;
  /** How long to hold the next chunk, ms (delay ± jitter); 0: send it at once. */
  holdMs(): number;
  /** A bandwidth cap's window under way (its budget and figures, shared by every connection), or null. */
  cap(): CapMeter | null;
}

/** A capped pipe writes pieces of at least a fifth of the bucket (10 ms of the rate): ~100 timers a second, not one a
 * byte. */
const PIECES_PER_BUCKET = 5;

/** One direction's tallies over every connection of the relay: its LinkCounters and the bytes held now. */
export class DirectionTally {
  readonly counters: LinkCounters = { forwarded: 0, dropped: 0, bytes: 0, maxHeld: 0 };
  heldBytes = 0;
  maxHeldBytes = 0;
  heldChunks = 0;
  discardedBytes = 0;

  /** The cap's window under way, if any: its arrivals, forwards and the most held are counted there too. */
  cap: CapMeter | null = null;

  held(chunk: Buffer): void {
    this.heldChunks += 1;
    this.heldBytes += chunk.length;
    this.counters.maxHeld = Math.max(this.counters.maxHeld, this.heldChunks);
    this.maxHeldBytes = Math.max(this.maxHeldBytes, this.heldBytes);
    this.cap?.holding(this.heldBytes);
  }

  released(chunk: Buffer): void {
    this.heldChunks -= 1;
    this.heldBytes -= chunk.length;
  }

  /** The first `bytes` of the chunk ahead left (a cap lets a chunk go piece by piece); the rest stays held. */
  releasedPart(bytes: number): void {
    this.heldBytes -= bytes;
  }

  forwarded(chunk: Buffer): void {
    this.counters.forwarded += 1;
    this.forwardedPart(chunk);
  }

  /** Bytes forwarded that end no chunk (a cap's piece): counted as bytes, the chunk once with its last piece. */
  forwardedPart(piece: Buffer): void {
    this.counters.bytes += piece.length;
    if (this.cap !== null) this.cap.forwarded += piece.length;
  }

  discarded(chunk: Buffer): void {
    this.released(chunk);
    this.counters.dropped += 1;
    this.discardedBytes += chunk.length;
  }
}

interface HeldChunk {
  chunk: Buffer;
  /** When it may leave, performance.now ms; Infinity: held by a partition until the heal. */
  due: number;
}

/**
 * One direction of one relayed TCP connection (`from`'s bytes written to `to`), in order: a chunk
 * leaves at once on a clear link, after its hold on a delayed one (never before the chunk ahead of
 * it, so jitter does not reorder a byte stream), and not at all during a partition, which holds
 * everything (the connections stay open) until release() forwards it in order. `from`'s end is
 * passed on once everything before it has left. On a clear link the pipe keeps TCP's back-pressure
 * (a full `to` pauses `from`), so a frozen client still fills the server's buffers as it would
 * without the relay; a partition reads on regardless: its bytes pile up here, where they are counted.
 *
 * Under a bandwidth cap the bytes leave at its rate, piece by piece (its token bucket, shared by the
 * client's connections), in order. Once this pipe holds more than the cap's queue it stops reading
 * `from` (paused), so the sender's kernel buffers fill and TCP's flow control pushes back on it, as
 * a slow link does; it reads again when what it holds is back under the queue, or the cap ends.
 */
export class StreamPipe {
  private readonly queue: HeldChunk[] = [];
  private head = 0;
  /** The latest due time given: the next chunk leaves no earlier (order kept). */
  private lastDue = 0;
  private timer: unknown;
  private timerFor = Infinity;
  private ended = false;
  private finished = false;
  private blocked = false;
  /** Paused because a cap's queue is full (beside `blocked`, TCP's own push-back): read again when both clear. */
  private overQueue = false;
  /** Bytes this connection's direction holds (the tally's are every connection's). */
  private heldBytes = 0;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly policy: StreamPolicy,
    private readonly tally: DirectionTally,
    private readonly timers: Timers = NODE_TIMERS,
  ) {
    from.on('data', (chunk: Buffer) => this.arrive(chunk));
    // A close without an end (an error, a reset) ends the stream here too: what is held still leaves.
    const end = () => {
      this.ended = true;
      this.flush();
    };
    from.on('end', end);
    from.on('close', end);
    to.on('close', () => this.discard());
  }

  get held(): number {
    return this.queue.length - this.head;
  }

  /** A partition began: read on even where `to` pushed back, so the bytes pile up in the relay. */
  partitioned(): void {
    if (this.blocked) this.from.resume();
  }

  /** The partition healed: what it held leaves now, in order, with what came after it. */
  release(): void {
    const now = this.timers.now();
    for (let i = this.head; i < this.queue.length; i++) if (this.queue[i]!.due === Infinity) this.queue[i]!.due = now;
    if (this.lastDue === Infinity) this.lastDue = now;
    this.flush();
  }

  /** Forgets what is held (its connection is gone): counted as discarded, never forwarded. */
  discard(): void {
    this.disarm();
    for (let i = this.head; i < this.queue.length; i++) this.tally.discarded(this.queue[i]!.chunk);
    this.queue.length = 0;
    this.head = 0;
    this.heldBytes = 0;
    this.finished = true;
  }

  private arrive(chunk: Buffer): void {
    if (this.finished) return;
    const partitioned = this.policy.partitioned();
    const holdMs = partitioned ? Infinity : this.policy.holdMs();
    const cap = this.policy.cap();
    if (cap !== null) cap.arrived += chunk.length;
    if (holdMs === 0 && this.held === 0 && cap === null) {
      this.write(chunk);
      return;
    }
    const due = partitioned ? Infinity : Math.max(this.lastDue, this.timers.now() + holdMs);
    this.lastDue = due;
    this.queue.push({ chunk, due });
    this.heldBytes += chunk.length;
    this.tally.held(chunk);
    this.flush();
    if (cap !== null && !this.overQueue && this.heldBytes > cap.queueBytes) {
      this.overQueue = true;
      cap.pauses += 1;
      this.from.pause();
    }
  }

  private flush(): void {
    if (this.finished) return;
    const now = this.timers.now();
    const until = now + TIMER_SLACK_MS;
    const cap = this.policy.cap();
    while (this.held > 0 && this.queue[this.head]!.due <= until) {
      const ahead = this.queue[this.head]!;
      const budget = cap === null ? ahead.chunk.length : cap.bucket.take(ahead.chunk.length, now);
      if (budget === 0) break;
      if (budget < ahead.chunk.length) {
        const piece = ahead.chunk.subarray(0, budget);
        ahead.chunk = ahead.chunk.subarray(budget);
        this.heldBytes -= budget;
        this.tally.releasedPart(budget);
        this.write(piece, false);
        break;
      }
      this.head += 1;
      this.heldBytes -= ahead.chunk.length;
      this.tally.released(ahead.chunk);
      this.write(ahead.chunk);
    }
    if (this.overQueue && (cap === null || this.heldBytes <= cap.queueBytes)) {
      this.overQueue = false;
      if (!this.blocked) this.from.resume();
    }
    if (this.held === 0) {
      this.queue.length = 0;
      this.head = 0;
      this.disarm();
      if (this.ended) {
        this.finished = true;
        this.to.end();
      }
      return;
    }
    const ahead = this.queue[this.head]!;
    // Capped and due: it waits for the budget of its next piece, not for its due time.
    const next =
      cap !== null && ahead.due <= until
        ? now + cap.bucket.waitMs(Math.min(ahead.chunk.length, cap.bucket.capacity / PIECES_PER_BUCKET), now)
        : ahead.due;
    if (next !== Infinity && next !== this.timerFor) this.arm(next);
    else if (next === Infinity) this.disarm();
  }

  /** `whole`: the chunk ends here (a piece of one is counted as a chunk once, with its last piece). */
  private write(chunk: Buffer, whole = true): void {
    if (whole) this.tally.forwarded(chunk);
    else this.tally.forwardedPart(chunk);
    if (this.to.write(chunk) || this.blocked || this.policy.partitioned()) return;
    this.blocked = true;
    this.from.pause();
    this.to.once('drain', () => {
      this.blocked = false;
      if (!this.overQueue) this.from.resume();
    });
  }

  private arm(due: number): void {
    this.disarm();
    this.timerFor = due;
    this.timer = this.timers.set(
      () => {
        this.timer = undefined;
        this.timerFor = Infinity;
        this.flush();
      },
      Math.max(0, due - this.timers.now()),
    );
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.timerFor = Infinity;
  }
}
