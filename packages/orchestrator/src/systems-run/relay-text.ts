import type { CapWindow } from '@state-divergence/protocol';
import { rateText } from '../model/faults.js';
import type { SystemRelay } from './system-document.js';

const bytes = (n: number) => `${n.toLocaleString('en-US')} B`;
const both = (b: { up: number; down: number }) => `${bytes(b.up)} up + ${bytes(b.down)} down`;

/**
 * A cap in words, against its own bound: "capped at 20 KB/s for 3.001 s: forwarded 61,400 B down (at
 * most 20 KB/s × 3.001 s + its 1,500 B bucket = 61,520 B) of 310,000 B that arrived; held at most
 * 90,112 B, stopped reading the server 2 times; 248,600 B left held at the end, forwarded then".
 */
export function capLine(cap: CapWindow): string {
  const bound = Math.floor(cap.rateBytesPerSec * cap.seconds + cap.bucketBytes);
  const paused = cap.pauses.down + cap.pauses.up;
  return (
    `capped at ${rateText(cap.rateBytesPerSec)} for ${cap.seconds} s: forwarded ${both(cap.forwardedBytes)} ` +
    `(each at most ${bytes(bound)}: the rate × the window + its ${bytes(cap.bucketBytes)} bucket) of ` +
    `${both(cap.arrivedBytes)} ` +
    `that arrived; held at most ${both(cap.maxHeldBytes)}` +
    (paused > 0 ? `, stopped reading the sender ${paused} times (beyond ${bytes(cap.queueBytes)} held)` : '') +
    `; ${both(cap.heldAtEndBytes)} held at its end, forwarded then`
  );
}

/**
 * A client's TCP relay in words, from its own counters: the connections it carried, what it
 * forwarded, what it held at each heal (and so forwarded then, in order), what a reset cut, and
 * what each cap paced.
 */
export function relayLine(relay: SystemRelay): string {
  const heals = relay.heals.map((held) => `held ${both(held)} at the heal`);
  const reset =
    relay.resetConnections === 0
      ? []
      : [`reset ${relay.resetConnections} connections (${bytes(relay.discardedBytes)} held then discarded)`];
  return (
    `  relay of ${relay.client}: ${relay.connections} connections, forwarded ${both(relay.forwardedBytes)}; ` +
    [...heals, `at most ${both(relay.maxHeldBytes)} held at once`, ...reset, ...relay.caps.map(capLine)].join('; ')
  );
}

/** What a stall's kernel queues are when the stalled consumer had a relay: its peer is the relay, not the server. */
export const relayedStallNote = (relayed: boolean) =>
  relayed ? ' (its connections end at its relay: the "server tx" is the relay\'s send queue)' : '';
