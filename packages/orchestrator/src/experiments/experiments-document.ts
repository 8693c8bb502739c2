import type { Mode } from '@state-divergence/protocol';
import { median } from 'simple-statistics';
import {
  churnPeak,
  queueFor,
  type ChurnPoint,
  type HotnessPoint,
  type NetworkPoint,
  type OverlapPoint,
  type QueuePoint,
  type RestartPoint,
} from './experiment-points.js';
import type { SystemsSection } from './systems-text.js';

/** Every measured point of an `orchestrator experiments` invocation, and what the expectation says about them. */
export interface ExperimentsDocument {
  config: { duration: number; seed: number; design: unknown };
  experiments: {
    churn?: {
      points: ChurnPoint[];
      peaks: Array<{ keys: number; rate: number; expectedFraction: number; measuredRates: [number, number] }>;
    };
    queue?: { points: QueuePoint[] };
    overlap?: { points: OverlapPoint[] };
    hotness?: { points: HotnessPoint[] };
    restart?: { points: RestartPoint[]; growth: RestartGrowth[] };
    network?: { points: NetworkPoint[] };
    /** The real systems' frontier (systems-experiment.ts): its grid and bisection points, the edges. */
    systems?: SystemsSection;
  };
}

/**
 * How reconnecting's cost grows with the consumers under one mode: at each count, ascending,
 * the bytes and the keys wrong at the end per consumer (wrong null: unknown); and all
 * consumers' bytes at the most consumers over those at the fewest (`between`), null where the
 * fewest got nothing (no ratio of nothing).
 */
export interface RestartGrowth {
  mode: Mode;
  perConsumer: Array<{ consumers: number; bytes: number; wrong: number | null }>;
  between: [number, number];
  ratio: number | null;
}

export type ExperimentPoint =
  | { experiment: 'churn'; point: ChurnPoint }
  | { experiment: 'queue'; point: QueuePoint }
  | { experiment: 'overlap'; point: OverlapPoint }
  | { experiment: 'hotness'; point: HotnessPoint }
  | { experiment: 'restart'; point: RestartPoint }
  | { experiment: 'network'; point: NetworkPoint };

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
  const transport =
    silence.length === 0
      ? 0
      : median(silence.map((p) => Math.max(0, p.rate * stallSeconds - p.dropped - p.queueCapacity)));
  const absorbed = (rate: number) => queueFor(rate) + transport;
  return [...new Set(points.map((p) => p.keys))].map((keys) => {
    const mine = points.filter((p) => p.keys === keys);
    const peak = churnPeak(keys, { stallSeconds, afterSeconds: 2 * duration, absorbed }, RATE_GRID);
    const rates = mine.map((p) => p.rate);
    return { keys, ...peak, measuredRates: [Math.min(...rates), Math.max(...rates)] as [number, number] };
  });
}

function restartGrowth(points: RestartPoint[]): RestartGrowth[] {
  return [...new Set(points.map((p) => p.mode))].map((mode) => {
    const mine = points.filter((p) => p.mode === mode).sort((a, b) => a.consumers - b.consumers);
    const fewest = mine[0]!;
    const most = mine.at(-1)!;
    // Three significant figures: a ratio can be far below 1 (a relist that found the broker empty at the most
    // consumers).
    const ratio =
      fewest.reconnectBytes === 0 ? null : Number((most.reconnectBytes / fewest.reconnectBytes).toPrecision(3));
    return {
      mode,
      perConsumer: mine.map((p) => ({
        consumers: p.consumers,
        bytes: Math.round(p.reconnectBytes / p.consumers),
        wrong: p.wrong === null ? null : Math.round(p.wrong / p.consumers),
      })),
      between: [fewest.consumers, most.consumers],
      ratio,
    };
  });
}

export function experimentsDocument(
  results: ExperimentPoint[],
  config: ExperimentsDocument['config'],
  systems?: SystemsSection,
): ExperimentsDocument {
  const churn = results.flatMap((r) => (r.experiment === 'churn' ? [r.point] : []));
  const queue = results.flatMap((r) => (r.experiment === 'queue' ? [r.point] : []));
  const overlap = results.flatMap((r) => (r.experiment === 'overlap' ? [r.point] : []));
  const hotness = results.flatMap((r) => (r.experiment === 'hotness' ? [r.point] : []));
  const restart = results.flatMap((r) => (r.experiment === 'restart' ? [r.point] : []));
  const network = results.flatMap((r) => (r.experiment === 'network' ? [r.point] : []));
  const experiments: ExperimentsDocument['experiments'] = {};
  if (churn.length > 0) experiments.churn = { points: churn, peaks: churnPeaks(churn, config.duration) };
  if (queue.length > 0) experiments.queue = { points: queue };
  if (overlap.length > 0) experiments.overlap = { points: overlap };
  if (hotness.length > 0) experiments.hotness = { points: hotness };
  if (restart.length > 0) experiments.restart = { points: restart, growth: restartGrowth(restart) };
  if (network.length > 0) experiments.network = { points: network };
  if (systems !== undefined) experiments.systems = systems;
  return { config, experiments };
}
