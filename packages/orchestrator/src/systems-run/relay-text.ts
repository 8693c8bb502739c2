import type { SystemRelay } from './system-document.js';

const bytes = (n: number) => `${n.toLocaleString('en-US')} B`;
const both = (b: { up: number; down: number }) => `${bytes(b.up)} up + ${bytes(b.down)} down`;

/**
 * A client's TCP relay in words, from its own counters: the connections it carried, what it
 * forwarded, what it held at each heal (and so forwarded then, in order), and what a reset cut.
 */
export function relayLine(relay: SystemRelay): string {
  const heals = relay.heals.map((held) => `held ${both(held)} at the heal`);
  const reset =
    relay.resetConnections === 0
      ? []
      : [`reset ${relay.resetConnections} connections (${bytes(relay.discardedBytes)} held then discarded)`];
  return (
    `  relay of ${relay.client}: ${relay.connections} connections, forwarded ${both(relay.forwardedBytes)}; ` +
    [...heals, `at most ${both(relay.maxHeldBytes)} held at once`, ...reset].join('; ')
  );
}

/** What a stall's kernel queues are when the stalled consumer had a relay: its peer is the relay, not the server. */
export const relayedStallNote = (relayed: boolean) =>
  relayed ? ' (its connections end at its relay: the "server tx" is the relay\'s send queue)' : '';
