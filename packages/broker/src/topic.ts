import { encodeEventFromPublishBody, type Mode } from '@state-divergence/protocol';
import type { Subscriber } from './subscriber.js';

/**
 * The change stream: assigns offsets and fans each event out to every
 * subscriber. An event is encoded once; all queues share the same bytes.
 *
 * lossy    - a full queue drops the new event for that subscriber only.
 * lossless - the publisher's reader waits (waitForRoom) before each event until
 *            every queue has room, so a full queue stops the broker reading and
 *            QUIC flow control pushes back to the publisher.
 */
export class Topic {
  private head = 0;
  readonly subscribers = new Map<string, Subscriber>();
  private roomWaiters: Array<() => void> = [];

  constructor(readonly mode: Mode) {}

  get headOffset(): number {
    return this.head;
  }

  /** Publishes one change (its PUBLISH body, verbatim). Returns the offset assigned. */
  publish(publishBody: Uint8Array): number {
    const offset = ++this.head;
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
