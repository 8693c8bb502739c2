import { CLEAR_LINK, PARTITIONED_LINK, type LinkShape } from '@state-divergence/protocol';
import type { Fault } from './faults.js';

/**
 * How a network fault shapes its link, the same both ways (the flags have one value for both):
 * a partition drops everything, a loss drops its share (correlated as asked), a delay holds each datagram,
 * a bandwidth cap paces both ways to its rate.
 * Our broker's nemesis (run/nemesis.ts) and a real system's relays (systems-run/network-links.ts) send it.
 */
export function linkShapeOf(fault: Fault): LinkShape {
  if (fault.kind === 'partition') return PARTITIONED_LINK;
  if (fault.kind === 'loss')
    return { ...CLEAR_LINK, lossPct: fault.lossPct ?? 0, correlationPct: fault.correlationPct ?? 0 };
  if (fault.kind === 'delay') return { ...CLEAR_LINK, delayMs: fault.delayMs ?? 0, jitterMs: fault.jitterMs ?? 0 };
  if (fault.kind === 'bandwidth') return { ...CLEAR_LINK, rateBytesPerSec: fault.rateBytesPerSec ?? 0 };
  throw new Error(`${fault.kind} is not a network fault`);
}
