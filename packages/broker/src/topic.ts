import { encodeEventFromPublishBody, queuePolicyOf, type Change, type Mode, type OverflowPolicy, type QueuePolicy } from '@state-divergence/protocol';
import { CompactedTable } from './compacted-table.js';
import { Subscriber } from './subscriber.js';
import type { SubscriberOptions } from './subscriber-options.js';
import { SubscriberStats } from './subscriber-stats.js';

/** What a subscription's session supplies; the Topic supplies the rest. */
export type SubscriptionSpec = Pick<SubscriberOptions, 'name' | 'capacity' | 'batchMaxEvents' | 'write' | 'farewell' | 'logger'>;

/**
 * The change stream: assigns offsets and fans each event out to every
 * subscriber. An event is encoded once; all queues share the same bytes.
 *
 * What a full queue does is the mode's queue policy (protocol's modes.ts):
 * an `--overflow` policy drops the new event for that subscriber only, or the
 *            oldest queued one, or ends its subscription;
 * block    - the publisher's reader waits (waitForRoom) before each event until
 *            every queue has room, so a full queue stops the broker reading and
 *            QUIC flow control pushes back to the publisher;
 * resync   - a full queue turns into a lag signal plus a delta (see Subscriber);
 *            nobody waits and nothing is lost.
 * Every mode keeps the compacted table: it also answers digests and snapshots.
 */
export class Topic {
  private head = 0;
  private highest = 0;
  /** The live subscriptions: an ended one leaves at once, so its name is free again. */
  readonly subscribers = new Map<string, Subscriber>();
  /** Every name that ever subscribed, with its figures across all its subscriptions. */
  readonly stats = new Map<string, SubscriberStats>();
  private roomWaiters: Array<() => void> = [];
  readonly table = new CompactedTable();
  /** Set when the broker shuts down: streams failing after this are expected, not news. */
  closing = false;
  /** What a full subscriber queue does in this run: the mode's policy, or `--overflow`'s where the mode leaves it to the flag. */
  readonly queuePolicy: QueuePolicy;

  constructor(
    readonly mode: Mode,
    overflow: OverflowPolicy = 'drop-new',
  ) {
    this.queuePolicy = queuePolicyOf(mode, overflow);
  }

  /**
   * Joins a subscription at the head, its opening frames (snapshot or delta) first,
   * in the same tick: it receives exactly the events after the head. A name seen
   * before continues its figures.
   */
  subscribe(spec: SubscriptionSpec, opening: Buffer[]): Subscriber {
    let stats = this.stats.get(spec.name);
    if (stats === undefined) this.stats.set(spec.name, (stats = new SubscriberStats()));
    const subscriber = new Subscriber({
      ...spec,
      queuePolicy: this.queuePolicy,
      table: this.table,
      headOffset: () => this.head,
      stats,
      onRoom: () => this.notifyRoom(),
      onEnd: (ended) => {
        if (this.subscribers.get(ended.name) === ended) this.subscribers.delete(ended.name);
      },
    });
    subscriber.startAt(this.head, opening);
    this.subscribers.set(spec.name, subscriber);
    return subscriber;
  }

  get headOffset(): number {
    return this.head;
  }

  /** The highest version accepted: a PUBLISH must exceed it (publish-rules.ts). */
  get highestVersion(): number {
    return this.highest;
  }

  /**
   * Publishes one change (its PUBLISH body, verbatim). Returns the offset assigned.
   * The caller has applied publishRefusal: versions only increase, so the
   * table's last arrival is also every replica's highest version.
   */
  publish(change: Change, publishBody: Uint8Array): number {
    const offset = ++this.head;
    this.highest = change.version;
    this.table.apply(offset, change, publishBody);
    const event = encodeEventFromPublishBody(offset, publishBody);
    for (const subscriber of this.subscribers.values()) {
      if (!subscriber.offer(offset, event)) subscriber.drop(offset);
    }
    return offset;
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
