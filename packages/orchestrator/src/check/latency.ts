import { quantileSorted } from 'simple-statistics';
import type { LatencySamples } from '@state-divergence/protocol';
import type { LatencySummary } from '../model/check-types.js';

const round = (ms: number): number => Math.round(ms * 100) / 100;

/**
 * Publish-to-apply latency percentiles (simple-statistics' quantileSorted: the
 * nearest-rank method on the sorted samples), optionally only for events
 * applied inside [from, to] (wall-clock ms). Null when no event qualifies.
 */
export function summarizeLatency(
  samples: LatencySamples,
  window?: { from: number; to: number },
): LatencySummary | null {
  const picked: number[] = [];
  for (let i = 0; i < samples.latencyMs.length; i++) {
    const at = samples.appliedAt[i]!;
    if (window === undefined || (at >= window.from && at <= window.to)) picked.push(samples.latencyMs[i]!);
  }
  if (picked.length === 0) return null;
  picked.sort((a, b) => a - b);
  return {
    count: picked.length,
    p50: round(quantileSorted(picked, 0.5)),
    p99: round(quantileSorted(picked, 0.99)),
    p999: round(quantileSorted(picked, 0.999)),
    max: round(picked.at(-1)!),
  };
}

/** The worst of some consumers' p99s (the healthy ones', beside a faulted one's); null when none has one. */
export function worstP99(p99s: Array<number | null | undefined>): number | null {
  const known = p99s.filter((p): p is number => p !== null && p !== undefined);
  return known.length === 0 ? null : Math.max(...known);
}
