/**
 * The broker's QUIC counters per subscriber name: summed over its connections, a closed one's
 * counters kept for good, a live one's read at each report, each connection counted once.
 */
import type { TransportStats } from '@state-divergence/protocol';
import { TransportTally, type TransportSource } from '@state-divergence/broker/internal';

function connection(stats: TransportStats) {
  let close!: () => void;
  const source: TransportSource & { stats: TransportStats } = {
    stats,
    read: () => source.stats,
    closed: new Promise<void>((resolve) => (close = resolve)),
  };
  return {
    source,
    close: async () => {
      close();
      await source.closed;
      await Promise.resolve();
    },
  };
}

test('no connection: zeros', () => {
  expect(new TransportTally().total()).toEqual({ sent: 0, lost: 0, retrans: 0, retransBytes: 0 });
});

test('a live connection is read at each report; a closed one is read once at its close and kept', async () => {
  const tally = new TransportTally();
  const first = connection({ sent: 10, lost: 1, retrans: 1, retransBytes: 100 });
  tally.add(first.source);
  first.source.stats = { sent: 20, lost: 2, retrans: 2, retransBytes: 200 };
  expect(tally.total()).toEqual({ sent: 20, lost: 2, retrans: 2, retransBytes: 200 });
  await first.close();
  // a closed connection is never read again
  first.source.stats = { sent: 999, lost: 999, retrans: 999, retransBytes: 999 };
  const second = connection({ sent: 5, lost: 0, retrans: 0, retransBytes: 0 }); // the name reconnected
  tally.add(second.source);
  expect(tally.total()).toEqual({ sent: 25, lost: 2, retrans: 2, retransBytes: 200 });
});

test('a connection added twice (two subscriptions on one connection) counts once; unreadable counters count as nothing', async () => {
  const tally = new TransportTally();
  const one = connection({ sent: 7, lost: 0, retrans: 0, retransBytes: 0 });
  tally.add(one.source);
  tally.add(one.source);
  tally.add({ read: () => null, closed: new Promise(() => {}) });
  expect(tally.total()).toEqual({ sent: 7, lost: 0, retrans: 0, retransBytes: 0 });
  await one.close();
  expect(tally.total()).toEqual({ sent: 7, lost: 0, retrans: 0, retransBytes: 0 });
});
