import { encodeAck } from '@state-divergence/protocol';

/**
 * The publisher's ACKs: ACK(highest committed version, head), one per batch rather than
 * per change. `soon` asks for one on the next turn of the event loop, by which time every
 * change of the same read chunk (or the same group commit) has been committed, so they
 * share it, unless the reader gave the writers a turn mid-chunk (Topic.writersTurn): a
 * large burst then gets one ACK per turn. At most one ACK write is in flight: a publisher that does not read its
 * stream holds one frame here, not a growing queue; the next ACK carries the latest state.
 */
export class Acker {
  private due = false;
  private scheduled = false;
  private writing = false;
  private stopped = false;
  /** ACKs written (the tests count them against the batches sent). */
  sent = 0;

  constructor(
    private readonly write: (bytes: Uint8Array) => Promise<void>,
    private readonly state: () => { version: number; head: number },
  ) {}

  /** An ACK now (right after WELCOME: what the broker already holds). */
  now(): void {
    this.due = true;
    this.flush();
  }

  soon(): void {
    this.due = true;
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /**
   * No ACK after this: the session is ending (an ERROR goes out instead, or nothing). A write to
   * a writer the session has closed is not merely refused: Node 20's web streams fail an internal
   * assertion, which would end the broker.
   */
  stop(): void {
    this.stopped = true;
  }

  private flush(): void {
    if (!this.due || this.writing || this.stopped) return;
    this.due = false;
    this.writing = true;
    const { version, head } = this.state();
    this.sent += 1;
    this.write(encodeAck(version, head)).then(
      () => {
        this.writing = false;
        this.flush();
      },
      // The stream is gone: the session ends on its own, and nothing is left to acknowledge to.
      () => {
        this.writing = false;
      },
    );
  }
}
