/** A batch taken from the front of a queue, ready for one write. */
export interface Batch {
  frames: Buffer[];
  lastOffset: number;
}

/**
 * One subscriber's queued events, oldest first: the encoded bytes (shared with
 * every other queue) and their offsets. Taking or evicting from the front moves
 * an index instead of shifting the arrays, and the dead prefix is cut off now and
 * then, so a deep queue costs O(1) per event whichever end it changes at.
 * Offsets only grow from front to back: the Topic offers them in order.
 */
export class EventQueue {
  private events: Buffer[] = [];
  private offsets: number[] = [];
  private head = 0;

  get size(): number {
    return this.events.length - this.head;
  }

  /** The offset of the oldest queued event; undefined when the queue is empty. */
  get oldestOffset(): number | undefined {
    return this.size > 0 ? this.offsets[this.head] : undefined;
  }

  push(offset: number, event: Buffer): void {
    this.events.push(event);
    this.offsets.push(offset);
  }

  /** Removes the oldest event (a ring's overwrite); returns its offset, or undefined when empty. */
  evictOldest(): number | undefined {
    if (this.size === 0) return undefined;
    const offset = this.offsets[this.head]!;
    this.advance(1);
    return offset;
  }

  /** Takes up to `max` events from the front, none with an offset above `through`. */
  take(max: number, through = Number.POSITIVE_INFINITY): Batch | undefined {
    let end = this.head;
    const limit = Math.min(this.events.length, this.head + max);
    while (end < limit && this.offsets[end]! <= through) end += 1;
    if (end === this.head) return undefined;
    const batch = { frames: this.events.slice(this.head, end), lastOffset: this.offsets[end - 1]! };
    this.advance(end - this.head);
    return batch;
  }

  /** Empties the queue; returns the offsets it held, oldest first. */
  clear(): number[] {
    const offsets = this.offsets.slice(this.head);
    this.events = [];
    this.offsets = [];
    this.head = 0;
    return offsets;
  }

  private advance(count: number): void {
    // Release what was taken: the bytes of a frozen subscriber's evicted events must not pile up.
    for (let i = this.head; i < this.head + count; i++) this.events[i] = EMPTY;
    this.head += count;
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events.splice(0, this.head);
      this.offsets.splice(0, this.head);
      this.head = 0;
    }
  }
}

const EMPTY = Buffer.alloc(0);
