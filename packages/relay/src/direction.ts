import type { LinkCounters, LinkShape } from '@state-divergence/protocol';
import { CapMeter, meterFor } from './cap-meter.js';
import { DelayLine, NODE_TIMERS, type Timers } from './delay-line.js';
import { LinkShaper } from './link-shaper.js';

/** Where a datagram goes once it leaves: a socket's send, bound to its destination. */
export type Sender = (datagram: Buffer) => void;

interface Held {
  datagram: Buffer;
  out: Sender;
}

/** A capped UDP queue holds at least this many datagrams of the run's size, however slow the cap. */
const QUEUE_FLOOR_DATAGRAMS = 4;

/**
 * One direction of the link (up: client to broker; down: broker to client): each datagram is
 * dropped, held, or sent at once, as its LinkShaper decides, and counted (LinkCounters). A
 * datagram counts as forwarded when it is handed to the socket, so one still held at stop is
 * neither forwarded nor dropped.
 *
 * Under a bandwidth cap it is a router's bottleneck: datagrams leave at the cap's rate (a token
 * bucket, each one booked whole when it arrives, so they leave in arrival order), wait in one queue
 * of at most `queueBytes`, and one that would overflow it is dropped (drop-tail, counted). QUIC
 * sees queueing delay, then loss, and its congestion control backs off, as on a slow link.
 */
export class Direction {
  readonly counters: LinkCounters = { forwarded: 0, dropped: 0, bytes: 0, maxHeld: 0 };
  private readonly shaper: LinkShaper;
  private readonly line: DelayLine<Held>;
  private heldBytes = 0;
  private cap: CapMeter | null = null;

  constructor(
    random: () => number,
    private readonly timers: Timers = NODE_TIMERS,
    private readonly datagramBytes = 1_350,
  ) {
    this.shaper = new LinkShaper(random);
    this.line = new DelayLine((held) => this.forward(held.datagram, held.out, true), timers);
  }

  /**
   * From now on. A cap that ends returns its figures and lets what it queued go at once (the link at
   * full speed again); a shape that caps starts a new window.
   */
  reshape(shape: LinkShape): CapMeter | null {
    this.shaper.reshape(shape);
    const ended = this.cap;
    if (ended !== null) {
      ended.heldAtEnd = this.heldBytes;
      this.cap = null;
      this.line.releaseAll();
    }
    this.cap = meterFor(shape, QUEUE_FLOOR_DATAGRAMS * this.datagramBytes, this.timers.now(), this.heldBytes);
    return ended;
  }

  carry(datagram: Buffer, out: Sender): void {
    let holdMs = this.shaper.next();
    if (holdMs === null) {
      this.counters.dropped += 1;
      return;
    }
    const cap = this.cap;
    if (cap !== null) {
      cap.arrived += datagram.length;
      const now = this.timers.now();
      // The queue is what waits now (each datagram held until its bytes are paid for): full, the newcomer is dropped.
      if (this.heldBytes + datagram.length > cap.queueBytes) {
        this.counters.dropped += 1;
        cap.dropped += 1;
        cap.droppedBytes += datagram.length;
        return;
      }
      holdMs += cap.bucket.reserve(datagram.length, now);
    }
    if (holdMs === 0) {
      this.forward(datagram, out, false);
    } else {
      this.line.hold({ datagram, out }, holdMs);
      this.heldBytes += datagram.length;
      cap?.holding(this.heldBytes);
      if (this.line.held > this.counters.maxHeld) this.counters.maxHeld = this.line.held;
    }
  }

  /** Drops what is held, unsent and uncounted: the run is over. */
  stop(): void {
    this.line.clear();
  }

  private forward(datagram: Buffer, out: Sender, wasHeld: boolean): void {
    if (wasHeld) this.heldBytes -= datagram.length;
    this.counters.forwarded += 1;
    this.counters.bytes += datagram.length;
    if (this.cap !== null) this.cap.forwarded += datagram.length;
    out(datagram);
  }
}
