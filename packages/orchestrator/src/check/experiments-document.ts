import { median } from 'simple-statistics';
import { churnPeak, queueFor, type ChurnPoint, type HotnessPoint, type OverlapPoint, type QueuePoint } from './experiment-points.js';

/** Every measured point of an `orchestrator experiments` invocation, and what the expectation says about them. */
export interface ExperimentsDocument {
  config: { duration: number; seed: number; design: unknown };
  experiments: {
    churn?: { points: ChurnPoint[]; peaks: Array<{ keys: number; rate: number; expectedFraction: number; measuredRates: [number, number] }> };
    queue?: { points: QueuePoint[] };
    overlap?: { points: OverlapPoint[] };
    hotness?: { points: HotnessPoint[] };
  };
}

export type ExperimentPoint =
  | { experiment: 'churn'; point: ChurnPoint }
  | { experiment: 'queue'; point: QueuePoint }
  | { experiment: 'overlap'; point: OverlapPoint }
  | { experiment: 'hotness'; point: HotnessPoint };

/** A log-spaced grid of rates, 50/s to 50,000/s, for finding the expected peak. */
const RATE_GRID = Array.from({ length: 61 }, (_, i) => Math.round(50 * 1000 ** (i / 60)));

/**
 * For each keyspace, where the expectation puts the churn regime's peak. Before
 * drops begin, the queue (an eighth of a second of the rate) and the transport
 * absorb events; what the transport takes is read off the measured silence
 * points (rate × stall − dropped − queue), not assumed.
 */
function churnPeaks(points: ChurnPoint[], duration: number) {
  const stallSeconds = 2 * duration;
  const silence = points.filter((p) => p.regime === 'silence' && p.dropped > 0);
  const transport = silence.length === 0 ? 0 : median(silence.map((p) => Math.max(0, p.rate * stallSeconds - p.dropped - p.queueCapacity)));
  const absorbed = (rate: number) => queueFor(rate) + transport;
  return [...new Set(points.map((p) => p.keys))].map((keys) => {
    const mine = points.filter((p) => p.keys === keys);
    const peak = churnPeak(keys, { stallSeconds, afterSeconds: 2 * duration, absorbed }, RATE_GRID);
    const rates = mine.map((p) => p.rate);
    return { keys, ...peak, measuredRates: [Math.min(...rates), Math.max(...rates)] as [number, number] };
  });
}

export function experimentsDocument(results: ExperimentPoint[], config: ExperimentsDocument['config']): ExperimentsDocument {
  const churn = results.flatMap((r) => (r.experiment === 'churn' ? [r.point] : []));
  const queue = results.flatMap((r) => (r.experiment === 'queue' ? [r.point] : []));
  const overlap = results.flatMap((r) => (r.experiment === 'overlap' ? [r.point] : []));
  const hotness = results.flatMap((r) => (r.experiment === 'hotness' ? [r.point] : []));
  const experiments: ExperimentsDocument['experiments'] = {};
  if (churn.length > 0) experiments.churn = { points: churn, peaks: churnPeaks(churn, config.duration) };
  if (queue.length > 0) experiments.queue = { points: queue };
  if (overlap.length > 0) experiments.overlap = { points: overlap };
  if (hotness.length > 0) experiments.hotness = { points: hotness };
  return { config, experiments };
}
