import { encodeEventFromPublishBody, type Change, type Mode } from '@state-divergence/protocol';
import { CompactedTable } from './compacted-table.js';
import type { OverflowPolicy, Subscriber } from './subscriber.js';

const OVERFLOW: Record<Mode, OverflowPolicy> = { lossy: 'drop', lossless: 'block', resync: 'resync' };

/**
 * The change stream: assigns offsets and fans each event out to every
 * subscriber. An event is encoded once; all queues share the same bytes.
 *
 * lossy    - a full queue drops the new event for that subscriber only.
 * lossless - the publisher's reader waits (waitForRoom) before each event until
 *            every queue has room, so a full queue stops the broker reading and
 *            QUIC flow control pushes back to the publisher.
 * resync   - a full queue turns into a lag signal plus a delta (see Subscriber);
 *            nobody waits and nothing is lost.
 * Every mode keeps the compacted table: it also answers digests and snapshots.
 */
export class Topic {
  private head = 0;
  private highest = 0;
  readonly subscribers = new Map<string, Subscriber>();
  private roomWaiters: Array<() => void> = [];
  readonly table = new CompactedTable();
  /** Set when the broker shuts down: streams failing after this are expected, not news. */
  closing = false;
  readonly overflow: OverflowPolicy;

  constructor(readonly mode: Mode) {
    this.overflow = OVERFLOW[mode];
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
