import { encodeError, ErrorCode, type QueuePolicy } from '@state-divergence/protocol';
import type { Lag } from './resync-delta.js';
import type { SubscriberOptions } from './subscriber-options.js';
import type { SubscriberStats } from './subscriber-stats.js';

/**
 * What a full queue did with the event offered: `room`, it made room and the event is queued;
 * `taken`, the subscription needs no queue for it (it is lagged, back-filling or ended now) and the
 * offer succeeds; `refused`, the offer fails and the Topic drops the event for this subscriber.
 */
export type FullQueueOutcome = 'room' | 'taken' | 'refused';

/** What a policy acts on: the Subscriber (subscriber.ts), seen from its full queue. */
export interface FullQueueSubject {
  readonly name: string;
  readonly options: SubscriberOptions;
  readonly stats: SubscriberStats;
  readonly queued: number;
  /** The last offset handed to the stream: what the subscriber has, as far as the broker knows. */
  readonly lastWritten: number;
  /** Its next write waits for the next turn of the event loop. */
  readonly turnDue: boolean;
  /** The offset of the oldest queued event; undefined when nothing is queued. */
  readonly oldestQueued: number | undefined;
  /** Removes the oldest queued event (its drop is recorded first, by `drop`). */
  evictOldest(): void;
  /** Empties the queue; returns the offsets it held (never handed to the stream), oldest first. */
  discardQueue(): number[];
  /** Records `offset` as lost for this subscriber (drop ranges, and a log line per run of drops). */
  drop(offset: number): void;
  /** Switches the writer to reading the durable log after `after`, letting the queue go. */
  readLog(after: number): void;
  /** Discards the queue and marks a resync pending from `lag.from`. */
  markLagged(lag: Lag): void;
  /** Ends the subscription with this ERROR frame after what is in flight; nothing after `at` reached it. */
  endWithError(message: string, error: Buffer, at: number): void;
}

/** One queue policy (protocol's QueuePolicy): what a full subscriber queue means. */
export interface FullQueuePolicy {
  /** The publisher's reader waits, before each event, until every queue has room (Topic.waitForRoom). */
  readonly waitsForRoom: boolean;
  /** It reads the durable log: a broker that keeps none cannot run it. */
  readonly needsLog: boolean;
  /** What a full queue does with the event at `offset`. Called only when the queue is full. */
  onFull(subscriber: FullQueueSubject, offset: number): FullQueueOutcome;
}

/**
 * A write that completed while the queue was full is due: the rest of a burst must not all be
 * refused before it runs (Topic.writersTurn).
 */
function letDueWriteRun(subscriber: FullQueueSubject): void {
  if (subscriber.turnDue) subscriber.options.onTurnDue();
}

/** The seed's broker: the new event is lost for this subscriber only, and nobody tells it. */
const dropNew: FullQueuePolicy = {
  waitsForRoom: false,
  needsLog: false,
  onFull(subscriber) {
    letDueWriteRun(subscriber);
    return 'refused';
  },
};

/** A ring: the oldest queued event is lost instead, so a consumer that wakes gets the most recent changes. */
const dropOldest: FullQueuePolicy = {
  waitsForRoom: false,
  needsLog: false,
  onFull(subscriber) {
    // A full queue holds an event: the broker's init guard refuses a queueCapacity below 1.
    const oldest = subscriber.oldestQueued!;
    subscriber.drop(oldest);
    subscriber.evictOldest();
    return 'room';
  },
};

/**
 * Like Redis's client-output-buffer-limit or NATS's slow consumer: the subscription ends with
 * ERROR slowConsumer. What it had queued and never handed to the stream, and the event that
 * overflowed, are dropped for it; what is in flight still arrives, then the ERROR. The name is free
 * at once.
 */
const disconnect: FullQueuePolicy = {
  waitsForRoom: false,
  needsLog: false,
  onFull(subscriber, offset) {
    const { stats, name } = subscriber;
    const unsent = subscriber.discardQueue();
    for (const dropped of unsent) stats.drops.add(dropped);
    stats.drops.add(offset);
    stats.disconnects += 1;
    stats.mark('disconnected', offset);
    const message =
      `slow consumer: ${name}'s queue of ${subscriber.options.queueCapacity} events was full at offset ${offset}; ` +
      `${unsent.length + 1} events dropped, subscribe again`;
    subscriber.options.logger.warn(
      {
        subscriber: name,
        firstOffset: unsent[0] ?? offset,
        lastOffset: offset,
        dropped: unsent.length + 1,
        disconnects: stats.disconnects,
      },
      'slow consumer disconnected',
    );
    subscriber.endWithError(message, encodeError(ErrorCode.slowConsumer, message), offset);
    return 'taken';
  },
};

/**
 * Lossless: the Topic waits for room before it offers (waitsForRoom), so a queue is full at an
 * offer only when an event was offered without that wait; it is refused, as drop-new refuses it.
 */
const block: FullQueuePolicy = {
  waitsForRoom: true,
  needsLog: false,
  onFull(subscriber) {
    letDueWriteRun(subscriber);
    return 'refused';
  },
};

/**
 * The queue is discarded and the subscriber marked lagged at the last offset handed to its stream
 * (O(1) memory while lagged); once its stream takes writes it gets LAG, a delta from the compacted
 * table and SYNC_END (resync-delta.ts). Nothing is lost, nobody waits.
 */
const resync: FullQueuePolicy = {
  waitsForRoom: false,
  needsLog: false,
  onFull(subscriber) {
    subscriber.markLagged({ from: subscriber.lastWritten, signal: true });
    return 'taken';
  },
};

/**
 * A broker with a log: the subscriber switches to reading the log after the last offset it was
 * sent (what its queue held is in the log after that offset, so it is let go, not discarded) until
 * it has caught up (backfill.ts). Nothing is lost, nobody waits.
 */
const backfill: FullQueuePolicy = {
  waitsForRoom: false,
  needsLog: true,
  onFull(subscriber, offset) {
    const { stats, lastWritten } = subscriber;
    stats.backfills += 1;
    // What resync would have weighed against its delta: the whole table, as of this recovery.
    stats.costs.fullSnapshotBytes += subscriber.options.table.fullSnapshotBytes;
    subscriber.options.logger.info(
      { subscriber: subscriber.name, from: lastWritten, queued: subscriber.queued, head: offset },
      'queue full: back-filling from the log',
    );
    subscriber.readLog(lastWritten);
    stats.lastAccepted = offset;
    return 'taken';
  },
};

/**
 * Every queue policy's object, by name. The type makes the mapping exhaustive: a policy protocol
 * adds and this table lacks, or one it lists that protocol no longer has, fails to compile.
 */
export const FULL_QUEUE_POLICIES: { readonly [P in QueuePolicy]: FullQueuePolicy } = {
  'drop-new': dropNew,
  'drop-oldest': dropOldest,
  disconnect,
  block,
  resync,
  backfill,
};
