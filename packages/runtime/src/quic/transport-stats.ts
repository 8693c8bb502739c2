import type { QUICConnection } from '@matrixai/quic';
import type { TransportStats } from '@state-divergence/protocol';

/** The part of quiche's `Connection.stats()` we read (the library's native/types.ts `Stats`). */
interface QuicheStats {
  sent: number;
  lost: number;
  retrans: number;
  streamRetransBytes: number;
}

/**
 * quiche's own counters for one side of one QUIC connection: packets sent, packets declared lost,
 * packets retransmitted, and stream bytes sent again.
 *
 * @matrixai/quic (2.0.9) does not expose them: quiche's connection lives in QUICConnection's `conn`
 * field, which the library marks `@internal` and leaves out of its types. This is the one place
 * that reaches into it. A library version that moves it gives null here (the broker's figures then
 * stay 0, and modes.e2e's assertion that a real run sent packets fails): nothing else breaks.
 * quiche keeps the counters after the connection closes, so they may be read at its end.
 */
export function transportStats(connection: QUICConnection): TransportStats | null {
  const conn = (connection as unknown as { conn?: { stats?: () => QuicheStats } }).conn;
  if (typeof conn?.stats !== 'function') return null;
  try {
    const { sent, lost, retrans, streamRetransBytes } = conn.stats();
    return { sent, lost, retrans, retransBytes: streamRetransBytes };
  } catch {
    return null;
  }
}

/** One connection's transport counters, for whoever sums them: read them now, or once it has closed. */
export interface ConnectionTransport {
  read(): TransportStats | null;
  /** Resolves once the connection has closed (after QUIC's closing period): its counters are final then. */
  closed: Promise<void>;
}

export function connectionTransport(connection: QUICConnection): ConnectionTransport {
  return { read: () => transportStats(connection), closed: connection.closedP };
}
