import type { TransportStats } from '@state-divergence/protocol';

/** One connection's QUIC counters (runtime's ConnectionTransport: the library's stats, read now or at its close). */
export interface TransportSource {
  read(): TransportStats | null;
  closed: Promise<void>;
}

const zero = (): TransportStats => ({ sent: 0, lost: 0, retrans: 0, retransBytes: 0 });

function addInto(total: TransportStats, stats: TransportStats | null): void {
  if (stats === null) return;
  total.sent += stats.sent;
  total.lost += stats.lost;
  total.retrans += stats.retrans;
  total.retransBytes += stats.retransBytes;
}

/**
 * What QUIC did for one subscriber name, summed over its connections (a reconnect is a new one):
 * a connection's counters are added for good once it has closed, and a live one's are read at
 * each report. Each connection counts once, however many subscriptions it carried.
 */
export class TransportTally {
  private readonly ended = zero();
  private readonly live = new Set<TransportSource>();
  private readonly seen = new WeakSet<TransportSource>();

  add(source: TransportSource): void {
    if (this.seen.has(source)) return;
    this.seen.add(source);
    this.live.add(source);
    void source.closed.then(() => {
      this.live.delete(source);
      addInto(this.ended, source.read());
    });
  }

  total(): TransportStats {
    const total = { ...this.ended };
    for (const source of this.live) addInto(total, source.read());
    return total;
  }
}
