/** A DIGEST waiting for every event queued before its request to be handed to the stream. */
interface PendingDigest {
  /** The last offset accepted when it was asked for: it goes out once nothing at or below it is queued. */
  after: number;
  /** Built when asked for (the broker's state then); undefined once a delta replaced the queue it waited on. */
  frame: Buffer | undefined;
  build: () => Buffer;
}

/**
 * One subscriber's unanswered DIGEST_REQUESTs, oldest first. Each is answered
 * right after exactly the events queued before it, however many are queued
 * after it: a subscriber whose queue never empties still gets its answer.
 * The digest is built when asked for, the broker's state at the head, which is
 * where those events bring the subscriber when none was dropped for it. If a
 * delta replaces the queue first, it is rebuilt right after that delta's
 * SYNC_END, which brings the subscriber to the head of that moment instead.
 */
export class PendingDigests {
  private pending: PendingDigest[] = [];

  /** `after`: the last offset accepted into the queue now; `build`: the DIGEST frame of the broker's state now. */
  add(after: number, build: () => Buffer, deltaPending: boolean): void {
    this.pending.push({ after, frame: deltaPending ? undefined : build(), build });
  }

  /** Where the next batch of events must stop so that the oldest digest goes out right behind its events. */
  get boundary(): number | undefined {
    return this.pending[0]?.after;
  }

  /** The queue they waited on was replaced by a delta: each is rebuilt when the delta goes out. */
  invalidate(): void {
    for (const digest of this.pending) digest.frame = undefined;
  }

  /** The digests with nothing queued at or before their boundary (`oldestQueued`: undefined when empty), oldest first.
   * */
  takeDue(oldestQueued: number | undefined): Buffer[] {
    const due: Buffer[] = [];
    while (this.pending.length > 0 && (oldestQueued === undefined || oldestQueued > this.pending[0]!.after)) {
      const digest = this.pending.shift()!;
      due.push(digest.frame ?? digest.build());
    }
    return due;
  }

  clear(): void {
    this.pending = [];
  }
}
