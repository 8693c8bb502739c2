import type { BrokerReport } from '@state-divergence/protocol';
import type { Absorption, StallBytes } from '../model/check-types.js';

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
    if (blocked === undefined)
      return [
        {
          consumer: stall.consumer,
          queueFilled: false,
          bytes: Math.max(0, atThaw.bytesSent - atFreeze.bytesSent),
          seconds: null,
        },
      ];
    return [
      {
        consumer: stall.consumer,
        queueFilled: true,
        bytes: Math.max(0, blocked.bytesBefore - atFreeze.bytesSent),
        seconds: Math.max(0, blocked.startedAt - atFreeze.at) / 1000,
      },
    ];
  });
}
