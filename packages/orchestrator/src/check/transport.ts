import type { BrokerReport } from '@state-divergence/protocol';

/** What the broker had handed a consumer's stream, as it answered, on its own clock (Date.now). */
export interface BrokerSample {
  at: number;
  bytesSent: number;
}

/**
 * One stall, as the broker saw it: its answers to the status requests sent
 * as soon as the SIGSTOP and the SIGCONT were confirmed in /proc (null: that
 * answer never came, or the run ended first).
 */
export interface StallBytes {
  consumer: string;
  atFreeze: BrokerSample | null;
  atThaw: BrokerSample | null;
}

/**
 * How much of one stall the transport swallowed before the broker's queue saw
 * anything: a frozen consumer's socket and QUIC stack keep accepting until
 * quiche's congestion window is full (10 datagrams at first; more once it has
 * grown), so the bigger the datagram, the later the broker's queue starts to
 * fill, and the less of the stall it sees. Measured from the broker's answer
 * once the SIGSTOP was confirmed (an IPC round trip later, about a millisecond):
 * from when the consumer could no longer read.
 */
export type Absorption =
  /** A write blocked `seconds` after the freeze, once the transport had taken `bytes`: from then on the broker's queue filled. */
  | { consumer: string; queueFilled: true; bytes: number; seconds: number }
  /** No write blocked: the transport took all `bytes` sent in the stall, and the broker's queue never filled. */
  | { consumer: string; queueFilled: false; bytes: number; seconds: null };

/**
 * Per stall, the first blocked write to that consumer (one the broker saw
 * pending 100 ms or more) that was still pending at the freeze or began during
 * the stall, both on the broker's clock. A stall either answer is missing for,
 * or whose broker report is missing, is left out: unknown, not guessed.
 */
export function absorbedInStalls(stalls: StallBytes[], broker: BrokerReport | null): Absorption[] {
  return stalls.flatMap((stall): Absorption[] => {
    const { atFreeze, atThaw } = stall;
    const subscriber = broker?.subscribers[stall.consumer];
    if (atFreeze === null || atThaw === null || subscriber === undefined) return [];
    const blocked = subscriber.blockedWrites.find((w) => w.startedAt + w.ms >= atFreeze.at && w.startedAt <= atThaw.at);
    if (blocked === undefined) return [{ consumer: stall.consumer, queueFilled: false, bytes: Math.max(0, atThaw.bytesSent - atFreeze.bytesSent), seconds: null }];
    return [{ consumer: stall.consumer, queueFilled: true, bytes: Math.max(0, blocked.bytesBefore - atFreeze.bytesSent), seconds: Math.max(0, blocked.startedAt - atFreeze.at) / 1000 }];
  });
}
