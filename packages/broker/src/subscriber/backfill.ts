import { encodeEventFromPublishBody } from '@state-divergence/protocol';
import type { LogReader } from '../log-port.js';

/** One page of the log, encoded as EVENT frames, ready for one write. */
export interface Page {
  kind: 'page';
  frames: Buffer[];
  bytes: number;
  lastOffset: number;
}

export type PageResult =
  | Page
  /** The writer has written up to the head: the subscriber rejoins its live queue. */
  | { kind: 'caughtUp' }
  /** Retention discarded the next event the subscriber needs; `oldest` is the oldest retained offset. */
  | { kind: 'tooOld'; oldest: number };

/**
 * One subscriber's reading of the log, from `from` up to the head, one page at a time:
 * a page is read only when the previous one was handed to the stream, so the memory a
 * back-fill holds is one page (batchMaxEvents events), whatever the distance to the head.
 * While it runs, the live events the Topic offers are not queued (O(1)): they are in the
 * log, below the head the writer is reading towards.
 */
export class Backfill {
  pages = 0;
  events = 0;
  /** The most records one read returned: the memory bound, counted rather than hoped for. */
  largestPage = 0;
  /** The last offset handed to the stream: the next page starts after it. */
  after: number;
  readonly startedAt = Date.now();

  constructor(
    private readonly log: LogReader,
    readonly from: number,
    private readonly pageSize: number,
  ) {
    this.after = from;
  }

  /**
   * The page after `after`, through `head` (the Topic's committed head: the store may hold
   * records whose commit has not run yet) and, when a digest waits at `through`, no further
   * than it, so the digest goes out right behind its events.
   */
  next(head: number, through: number | undefined): PageResult {
    const after = this.after;
    if (after >= head) return { kind: 'caughtUp' };
    if (after + 1 < this.log.oldest) return { kind: 'tooOld', oldest: this.log.oldest };
    const end = Math.min(
      head,
      after + this.pageSize,
      through !== undefined && through > after ? through : Number.POSITIVE_INFINITY,
    );
    const records = this.log.read(after, end - after);
    const first = records[0];
    if (first === undefined || first.offset !== after + 1) {
      // Retention may have moved between the check above and the read; otherwise the log lost a committed record.
      if (after + 1 < this.log.oldest) return { kind: 'tooOld', oldest: this.log.oldest };
      throw new Error(
        `the log returned ${first === undefined ? 'nothing' : `offset ${first.offset}`} for the record after ` +
          `${after}, below its head ${head}`,
      );
    }
    const frames: Buffer[] = [];
    let bytes = 0;
    let lastOffset = after;
    for (const record of records) {
      // Past the page, or not the next offset: the next read starts here and judges it.
      if (record.offset > end || record.offset !== lastOffset + 1) break;
      const frame = encodeEventFromPublishBody(record.offset, record.body);
      frames.push(frame);
      bytes += frame.length;
      lastOffset = record.offset;
    }
    this.after = lastOffset;
    this.pages += 1;
    this.events += frames.length;
    if (records.length > this.largestPage) this.largestPage = records.length;
    return { kind: 'page', frames, bytes, lastOffset };
  }
}
