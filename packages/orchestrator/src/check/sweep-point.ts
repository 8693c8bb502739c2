import { expectedKeysTouched } from '@state-divergence/protocol';
import type { ModeResult } from './outcome.js';

export interface SweepPoint {
  rate: number;
  keys: number;
  published: number;
  /** Events the broker dropped for the stalled consumer(s), averaged. */
  dropped: number;
  wrong: number;
  wrongFraction: number;
  /** sum_k 1 - (1 - p_k)^dropped, over keys: what losing the last `dropped` changes should cost. */
  expectedFraction: number;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * One point of a sweep, from one lossy run: the stalled consumers' damage beside
 * the analytic expectation for the drops the broker reported. Publishing stops
 * when the stall ends, so a consumer loses the tail of the stream: the
 * expectation is the number of distinct keys among that tail.
 */
export function sweepPoint(result: ModeResult, settings: { rate: number; keys: number }): SweepPoint {
  const stalled = result.check.consumers.filter((c) => c.faulted);
  const dropped = stalled.reduce((sum, c) => sum + (result.broker?.subscribers[c.name]?.dropped ?? 0), 0) / stalled.length;
  const wrong = stalled.reduce((sum, c) => sum + c.wrongKeys.length, 0) / stalled.length;
  return {
    rate: settings.rate,
    keys: settings.keys,
    published: result.published,
    dropped: Math.round(dropped),
    wrong: Math.round(wrong),
    wrongFraction: round3(wrong / settings.keys),
    expectedFraction: round3(expectedKeysTouched(settings.keys, Math.round(dropped)) / settings.keys),
  };
}
