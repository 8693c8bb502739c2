import type { BlockedWrite, BrokerReport } from '@state-divergence/protocol';

/** What the broker had handed to a frozen consumer's stream at its SIGSTOP and at its SIGCONT. */
export interface StallBytes {
  consumer: string;
  /** Wall-clock ms of the SIGSTOP, and of the SIGCONT (null: never thawed, e.g. the run was cut short). */
  frozenAt: number;
  thawedAt: number | null;
  /** The broker's bytesSent to it just after the SIGSTOP and just after the SIGCONT (an IPC round trip each). */
  sentAtFreeze: number;
  sentAtThaw: number | null;
}

/**
 * How much of one stall the transport swallowed before the broker's queue saw
 * anything: a frozen consumer's socket and QUIC stack keep accepting until
 * quiche's congestion window is full (10 datagrams), so the bigger the
 * datagram, the later the broker's queue starts to fill, and the less of the
 * stall it sees.
 */
export interface Absorption {
  consumer: string;
  /** Bytes the broker handed to the frozen consumer's stream after its SIGSTOP before a write blocked (or, if none did, until its SIGCONT). */
  bytes: number;
  /** Seconds from the SIGSTOP to the write that blocked; null when none blocked. */
  seconds: number | null;
  /** Whether a write blocked in the stall: only then did the broker's queue fill (and overflow, if the stall was long enough). */
  queueFilled: boolean;
}

/**
 * Per stall, matched with the first write to that consumer that blocked while
 * it was frozen (the broker keeps each write pending 100 ms or more).
 */
export function absorbedInStalls(stalls: StallBytes[], broker: BrokerReport | null): Absorption[] {
  return stalls.map((stall) => {
    const blocked: BlockedWrite | undefined = broker?.subscribers[stall.consumer]?.blockedWrites.find(
      (w) => w.startedAt >= stall.frozenAt && (stall.thawedAt === null || w.startedAt <= stall.thawedAt),
    );
    if (blocked !== undefined) {
      return { consumer: stall.consumer, bytes: Math.max(0, blocked.bytesBefore - stall.sentAtFreeze), seconds: (blocked.startedAt - stall.frozenAt) / 1000, queueFilled: true };
    }
    return { consumer: stall.consumer, bytes: Math.max(0, (stall.sentAtThaw ?? stall.sentAtFreeze) - stall.sentAtFreeze), seconds: null, queueFilled: false };
  });
}
