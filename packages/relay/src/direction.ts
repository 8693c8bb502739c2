import type { LinkCounters, LinkShape } from '@state-divergence/protocol';
import { DelayLine, NODE_TIMERS, type Timers } from './delay-line.js';
import { LinkShaper } from './link-shaper.js';

/** Where a datagram goes once it leaves: a socket's send, bound to its destination. */
export type Sender = (datagram: Buffer) => void;

interface Held {
  datagram: Buffer;
  out: Sender;
}

/**
 * One direction of the link (up: client to broker; down: broker to client): each datagram is
 * dropped, held, or sent at once, as its LinkShaper decides, and counted (LinkCounters). A
 * datagram counts as forwarded when it is handed to the socket, so one still held at stop is
 * neither forwarded nor dropped.
 */
export class Direction {
  readonly counters: LinkCounters = { forwarded: 0, dropped: 0, bytes: 0, maxHeld: 0 };
  private readonly shaper: LinkShaper;
  private readonly line: DelayLine<Held>;

  constructor(random: () => number, timers: Timers = NODE_TIMERS) {
    this.shaper = new LinkShaper(random);
    this.line = new DelayLine((held) => this.forward(held.datagram, held.out), timers);
  }

  reshape(shape: LinkShape): void {
    this.shaper.reshape(shape);
  }

  carry(datagram: Buffer, out: Sender): void {
    const holdMs = this.shaper.next();
    if (holdMs === null) {
      this.counters.dropped += 1;
    } else if (holdMs === 0) {
      this.forward(datagram, out);
    } else {
      this.line.hold({ datagram, out }, holdMs);
      if (this.line.held > this.counters.maxHeld) this.counters.maxHeld = this.line.held;
    }
  }

  /** Drops what is held, unsent and uncounted: the run is over. */
  stop(): void {
    this.line.clear();
  }

  private forward(datagram: Buffer, out: Sender): void {
    this.counters.forwarded += 1;
    this.counters.bytes += datagram.length;
    out(datagram);
  }
}
