/**
 * Group commit: items added while no commit runs wait for the end of the event-loop turn (a
 * setImmediate), so everything added in one turn goes in one transaction; items added while a
 * commit runs wait for it and go in the next one, all together. One transaction is in flight at
 * a time, so under on-commit one fdatasync covers every append that arrived during the previous
 * one: the busier the log, the bigger the batches, the fewer fsyncs per record.
 *
 * Each add() resolves, in order, when its batch's commit resolves. A commit that fails rejects
 * its batch and everything queued behind it, and the queue stays failed: after a failed write
 * or fdatasync, what the kernel still holds is unknown (a failed fsync may have dropped the
 * dirty pages), so the log takes no more writes; a restart recovers from what is on disk.
 */
export class GroupCommit<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (error: Error) => void }> = [];
  private running: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(private readonly commit: (batch: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.run());
    });
  }

  /** The error that stopped the log, if one did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Fails the queue from outside (a failed fdatasync): what is queued, and every later add, rejects with `error`. */
  stop(error: Error): void {
    this.failure ??= error;
    for (const entry of this.queue) entry.reject(this.failure);
    this.queue = [];
  }

  /** Resolves when every item added so far has been committed or rejected. */
  async drain(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === undefined) {
        const batch = this.queue;
        this.queue = [];
        try {
          await this.commit(batch.map((entry) => entry.item));
        } catch (error) {
          this.failure = error instanceof Error ? error : new Error(String(error));
          for (const entry of [...batch, ...this.queue]) entry.reject(this.failure);
          this.queue = [];
          return;
        }
        for (const entry of batch) entry.resolve();
      }
    } finally {
      this.running = undefined;
    }
  }
}
