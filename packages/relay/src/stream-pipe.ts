import type { Socket } from 'node:net';
import type { LinkCounters } from '@state-divergence/protocol';
import { NODE_TIMERS, type Timers } from './delay-line.js';

/** What a chunk due within this much of now leaves with the batch (as DelayLine's slack). */
const TIMER_SLACK_MS = 1;

/** How the link treats the bytes that arrive now: read per chunk, so a reshape applies from the next one. */
export interface StreamPolicy {
  /** A partition: hold everything until the heal. */
  partitioned(): boolean;
  /** How long to hold the next chunk, ms (delay ± jitter); 0: send it at once. */
  holdMs(): number;
}

/** One direction's tallies over every connection of the relay: its LinkCounters and the bytes held now. */
export class DirectionTally {
  readonly counters: LinkCounters = { forwarded: 0, dropped: 0, bytes: 0, maxHeld: 0 };
  heldBytes = 0;
  maxHeldBytes = 0;
  heldChunks = 0;
  discardedBytes = 0;

  held(chunk: Buffer): void {
    this.heldChunks += 1;
    this.heldBytes += chunk.length;
    this.counters.maxHeld = Math.max(this.counters.maxHeld, this.heldChunks);
    this.maxHeldBytes = Math.max(this.maxHeldBytes, this.heldBytes);
  }

  released(chunk: Buffer): void {
    this.heldChunks -= 1;
    this.heldBytes -= chunk.length;
  }

  forwarded(chunk: Buffer): void {
    this.counters.forwarded += 1;
    this.counters.bytes += chunk.length;
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
    this.finished = true;
  }

  private arrive(chunk: Buffer): void {
    if (this.finished) return;
    const partitioned = this.policy.partitioned();
    const holdMs = partitioned ? Infinity : this.policy.holdMs();
    if (holdMs === 0 && this.held === 0) {
      this.write(chunk);
      return;
    }
    const due = partitioned ? Infinity : Math.max(this.lastDue, this.timers.now() + holdMs);
    this.lastDue = due;
    this.queue.push({ chunk, due });
    this.tally.held(chunk);
    this.flush();
  }

  private flush(): void {
    if (this.finished) return;
    const until = this.timers.now() + TIMER_SLACK_MS;
    while (this.held > 0 && this.queue[this.head]!.due <= until) {
      const { chunk } = this.queue[this.head++]!;
      this.tally.released(chunk);
      this.write(chunk);
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
    const next = this.queue[this.head]!.due;
    if (next !== Infinity && next !== this.timerFor) this.arm(next);
    else if (next === Infinity) this.disarm();
  }

  private write(chunk: Buffer): void {
    this.tally.forwarded(chunk);
    if (this.to.write(chunk) || this.blocked || this.policy.partitioned()) return;
    this.blocked = true;
    this.from.pause();
    this.to.once('drain', () => {
      this.blocked = false;
      this.from.resume();
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
