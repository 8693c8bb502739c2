import { encodeEventFromPublishBody, type Change, type QueuePolicy } from '@state-divergence/protocol';
import { CompactedTable } from './compacted-table.js';
import type { LogReader } from './log-port.js';
import { FULL_QUEUE_POLICIES } from './subscriber/full-queue.js';
import { Subscriber } from './subscriber/subscriber.js';
import type { SubscriberOptions } from './subscriber/subscriber-options.js';
import { SubscriberStats } from './subscriber/subscriber-stats.js';

/** What a subscription's session supplies; the Topic supplies the rest. */
export type SubscriptionSpec = Pick<
  SubscriberOptions,
  'name' | 'queueCapacity' | 'batchMaxEvents' | 'coalesceMs' | 'write' | 'farewell' | 'logger'
>;

/**
 * The change stream: assigns offsets and fans each event out to every
 * subscriber. An event is encoded once; all queues share the same bytes.
 *
 * What a full queue does is the init's queue policy (protocol's modes.ts resolved by the
 * orchestrator: the broker never sees the mode), one object each in subscriber/full-queue.ts:
 * an `--overflow` policy drops the new event for that subscriber only, or the
 *            oldest queued one, or ends its subscription;
 * block    - the publisher's reader waits (waitForRoom) before each event until
 *            every queue has room, so a full queue stops the broker reading and
 *            QUIC flow control pushes back to the publisher;
 * resync   - a full queue turns into a lag signal plus a delta (see Subscriber);
 *            nobody waits and nothing is lost.
 * backfill - (a broker with a log) a full queue switches the subscriber to reading
 *            the log until it has caught up (see Subscriber): nothing is lost, nobody waits.
 * Every mode keeps the compacted table: it also answers digests and snapshots.
 *
 * With a log, the Topic holds only committed changes: the publish path (intake.ts) appends
 * first and commits here once the append resolved, so the table, the head, snapshots,
 * digests and fan-out never see a record the log does not hold.
 */
export class Topic {
  private head = 0;
  private highest = 0;
  /** The live subscriptions: an ended one leaves at once, so its name is free again. */
  readonly subscribers = new Map<string, Subscriber>();
  /** Every name that ever subscribed, with its figures across all its subscriptions. */
  readonly stats = new Map<string, SubscriberStats>();
  private roomWaiters: Array<() => void> = [];
  /** A subscriber's writer is waiting for its turn with half its queue full (writersTurn). */
  private turnDue = false;
  readonly table = new CompactedTable();
  /** Set when the broker shuts down: streams failing after this are expected, not news. */
  closing = false;
  /** Its policy makes the publisher's reader wait for room before each event (block). */
  readonly waitsForRoom: boolean;

  constructor(
    /** What a full subscriber queue does in this run (BrokerInit.queuePolicy). */
    readonly queuePolicy: QueuePolicy = 'drop-new',
    /** The durable log, when the broker keeps one: back-filling writers read it. */
    readonly log?: LogReader,
  ) {
    const policy = FULL_QUEUE_POLICIES[queuePolicy];
    if (policy.needsLog && log === undefined) {
      throw new Error(`queue policy ${queuePolicy} needs a log to back-fill from`);
    }
    this.waitsForRoom = policy.waitsForRoom;
  }

  /**
   * A restarted durable broker's state, from its log: each key's last write (in offset
   * order) rebuilds the compacted table; the head and highest version are the log's.
   */
  restore(
    lastWrites: Array<{ offset: number; change: Change; body: Uint8Array }>,
    head: number,
    highestVersion: number,
  ): void {
    for (const { offset, change, body } of lastWrites) this.table.apply(offset, change, body);
    this.head = head;
    this.highest = highestVersion;
  }

  /**
   * Joins a subscription at the head, in the same tick: its opening frames (snapshot
   * or delta) first, then exactly the events after the head. With `replayAfter` N (a
   * broker with a log), it is registered live now, pinning the live edge, and its
   * writer reads the log's events after N a page at a time until it reaches the head,
   * then goes on with live events: no gap, no duplicate. A name seen before continues its figures.
   */
  subscribe(spec: SubscriptionSpec, opening: Buffer[], replayAfter?: number): Subscriber {
    let stats = this.stats.get(spec.name);
    if (stats === undefined) this.stats.set(spec.name, (stats = new SubscriberStats()));
    const subscriber = new Subscriber({
      ...spec,
      queuePolicy: this.queuePolicy,
      table: this.table,
      log: this.log,
      headOffset: () => this.head,
      stats,
      onRoom: () => this.notifyRoom(),
      onTurnDue: () => {
        this.turnDue = true;
      },
      // Called only once the subscription has ended, after the constructor: `subscriber` is set by then.
      onEnd: () => {
        if (this.subscribers.get(spec.name) === subscriber) this.subscribers.delete(spec.name);
      },
    });
    if (replayAfter === undefined) subscriber.startAt(this.head, opening);
    else subscriber.replayFrom(replayAfter);
    this.subscribers.set(spec.name, subscriber);
    return subscriber;
  }

  get headOffset(): number {
    return this.head;
  }

  /** The highest version committed (the publisher's ACK; without a log also the one a PUBLISH must exceed). */
  get highestVersion(): number {
    return this.highest;
  }

  /**
   * Publishes one change (its PUBLISH body, verbatim) at the next offset. Returns the offset.
   * The caller has applied publishRefusal: versions only increase, so the
   * table's last arrival is also every replica's highest version.
   */
  publish(change: Change, publishBody: Uint8Array): number {
    this.commit(this.head + 1, change, publishBody);
    return this.head;
  }

  /** Applies and fans out the change given `offset`, which must be the next one: a log's appends resolve in order. */
  commit(offset: number, change: Change, publishBody: Uint8Array): void {
    if (offset !== this.head + 1)
      throw new Error(`commit of offset ${offset} after head ${this.head}: appends must resolve in order`);
    this.head = offset;
    this.highest = change.version;
    this.table.apply(offset, change, publishBody);
    const event = encodeEventFromPublishBody(offset, publishBody);
    for (const subscriber of this.subscribers.values()) {
      if (!subscriber.offer(offset, event)) subscriber.drop(offset);
    }
  }

  /**
   * The publisher's reader calls this after each change: undefined, or a promise of the next
   * turn of the event loop when a subscriber's writer is waiting for it with half its queue
   * full. Reads of a stream whose data is already buffered resolve within microtasks, and a
   * writer's write goes out on the next turn (SubscriberWriter.schedule): after the broker was
   * off the CPU for a while, it read the publisher's backlog in one go and every queue
   * overflowed with its writer idle (measured at the firehose, 20,000/s: the healthy
   * consumers' 6-8 k drops each came in runs that started at the same offset for all three
   * subscribers, the frozen one included, before it was frozen). It costs a turn per half queue
   * at least, one per change while a due writer's queue stays above half (a batch smaller than
   * half a queue), and nothing when a burst is smaller than half a queue. It paces changes that
   * commit as they are read (memoryIntake): with a log, commits resolve later in group-commit
   * batches, and a batch of more than half a queue fans out before the turn (a queue that
   * overflows there back-fills from the log, so nothing is lost).
   */
  writersTurn(): Promise<void> | undefined {
    if (!this.turnDue) return undefined;
    this.turnDue = false;
    return new Promise((resolve) => setImmediate(resolve));
  }

  hasRoom(): boolean {
    for (const subscriber of this.subscribers.values()) if (!subscriber.hasRoom) return false;
    return true;
  }

  /** Resolves when every subscriber queue has room for one more event. */
  waitForRoom(): Promise<void> | undefined {
    if (this.hasRoom()) return undefined;
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Subscribers call this when their queue shrinks. */
  notifyRoom(): void {
    if (this.roomWaiters.length === 0 || !this.hasRoom()) return;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }
}
