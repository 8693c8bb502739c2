/**
 * The peer section's figures (bench/src/peers-section.ts measures them): our broker in each mode and
 * every real system, the same workload, and each figure's ratio to the best real system's in the
 * same run. Type-only imports and pure functions: table.ts draws docs/RESULTS.md with them.
 */
import { quantileSorted } from 'simple-statistics';

/** One step of a fan-out ramp: `rate` changes/s to 3 consumers. */
export interface RampStep {
  rate: number;
  /** Changes issued ÷ rate × seconds. */
  achievedRatio: number;
  /** Changes some consumer did not get: for a real system, acknowledged writes a consumer never applied; for our
   * broker, its drops, lag signals and back-fills from the log to the consumers. */
  dropped: number;
  /** A real system's: writes a consumer skipped that a later write to the same key, which it applied, superseded
   * (a KV bucket's watcher; 0 elsewhere). Absent for our broker. */
  superseded?: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
}

export interface LatencyPoint {
  /** Healthy consumers' publish→apply, ms, before the stall and in it; null: no sample. */
  before: Percentiles | null;
  during: Percentiles | null;
  /** The server's CPU per change delivered to a consumer over the stall's window, µs. */
  cpuMicrosPerDelivery: number | null;
  /** The server's peak RSS (VmHWM), MiB. */
  peakRssMiB: number | null;
}

export interface PeerRow {
  /** `broker lossy`, …, or the system's name. */
  name: string;
  kind: 'broker' | 'system';
  /** Why the row was not measured (not installed, or its run failed); null: measured. */
  missing: string | null;
  ramp: RampStep[];
  /** The highest ramp rate at which, and at every rate below it, no change was dropped and 95 % of the rate was
   * issued; null: not even the first. */
  fanoutNoDrop: number | null;
  latency: LatencyPoint | null;
}

export interface PeerFigures {
  consumers: number;
  /** The real systems' consumer idiom. */
  idiom: 'naive';
  /** The ramp's rates, in order; a target stops at its first miss. */
  rampRates: number[];
  rampSeconds: number;
  latencyRate: number;
  phaseSeconds: number;
  rows: PeerRow[];
  wallSeconds: number;
  /** The machine's 1-minute load average as the section began and ended: on 2 shared cores, what the figures bore. */
  load?: { start: number; end: number };
}

export const latencyOf = (samples: number[]): Percentiles | null => {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: quantileSorted(sorted, 0.5), p99: quantileSorted(sorted, 0.99) };
};

/**
 * A ramp's held rate: the highest rate at which, and at every rate of the ramp below it, no change was dropped
 * and 95 % of the rate was written (steps in any order: a bisection's come after the doubling's); null: not
 * even the lowest.
 */
export function heldRate(ramp: readonly RampStep[]): number | null {
  const holds = (s: RampStep) => s.dropped === 0 && s.achievedRatio >= 0.95;
  const ascending = [...ramp].sort((a, b) => a.rate - b.rate);
  const failing = ascending.findIndex((s) => !holds(s));
  return (failing === -1 ? ascending : ascending.slice(0, failing)).at(-1)?.rate ?? null;
}

/** Each figure the table shows, by row, and whether more is better. */
const METRICS = {
  fanout: { of: (r: PeerRow) => r.fanoutNoDrop, higherIsBetter: true },
  beforeP50: { of: (r: PeerRow) => r.latency?.before?.p50 ?? null, higherIsBetter: false },
  beforeP99: { of: (r: PeerRow) => r.latency?.before?.p99 ?? null, higherIsBetter: false },
  duringP50: { of: (r: PeerRow) => r.latency?.during?.p50 ?? null, higherIsBetter: false },
  duringP99: { of: (r: PeerRow) => r.latency?.during?.p99 ?? null, higherIsBetter: false },
  cpu: { of: (r: PeerRow) => r.latency?.cpuMicrosPerDelivery ?? null, higherIsBetter: false },
  rss: { of: (r: PeerRow) => r.latency?.peakRssMiB ?? null, higherIsBetter: false },
} as const;
export type Metric = keyof typeof METRICS;

const known = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The best real system's value of `metric` in these rows, and its name; null when no system measured it. */
export function bestPeer(rows: readonly PeerRow[], metric: Metric): { name: string; value: number } | null {
  const { of, higherIsBetter } = METRICS[metric];
  let best: { name: string; value: number } | null = null;
  for (const row of rows) {
    const value = of(row);
    if (row.kind !== 'system' || !known(value)) continue;
    if (best === null || (higherIsBetter ? value > best.value : value < best.value)) best = { name: row.name, value };
  }
  return best;
}

/** `row`'s `metric` ÷ the best real system's; null when either is unknown (or the best is 0). */
export function ratioToBest(rows: readonly PeerRow[], row: PeerRow, metric: Metric): number | null {
  const value = METRICS[metric].of(row);
  const best = bestPeer(rows, metric);
  return known(value) && best !== null && best.value > 0 ? value / best.value : null;
}

const fixed = (x: number | null, digits: number) => (known(x) ? x.toFixed(digits) : '–');
const withRatio = (rows: readonly PeerRow[], row: PeerRow, metric: Metric, digits: number) => {
  const ratio = ratioToBest(rows, row, metric);
  const value = fixed(METRICS[metric].of(row), digits);
  return ratio === null ? value : `${value} (×${ratio.toFixed(2)})`;
};

/** The peer table as markdown lines: a row per broker mode and system, each figure with its ratio to the best
 * system's. */
export function renderPeerTable(peers: PeerFigures): string[] {
  const { rows } = peers;
  const best = (metric: Metric) => {
    const b = bestPeer(rows, metric);
    return b === null ? 'none measured' : `${b.name} ${fixed(b.value, metric === 'fanout' ? 0 : 1)}`;
  };
  return [
    `### Peers: our broker beside the real systems, one run (${peers.wallSeconds} s` +
      (peers.load ? `, load average ${peers.load.start.toFixed(1)} → ${peers.load.end.toFixed(1)})` : ')'),
    '',
    `The same workload everywhere: the seed's keyspace and workload, 3 consumers (the real systems': their ` +
      `${peers.idiom} idiom, which with no fault carries every change; the harness's writer, at most 256 writes ` +
      `unacknowledged). Fan-out: the highest rate of the ramp ${peers.rampRates.join(', ')}/s ` +
      `(${peers.rampSeconds} s of writes a step, stopped at the first miss, then one step halfway back; –: not ` +
      `even the first) at which every ` +
      `consumer got every change (a KV watcher may skip a write a later one to the same key superseded; for our ` +
      `broker: no drop, lag or back-fill) and 95 % of the rate was written. Latency and CPU: ` +
      `${peers.latencyRate}/s, the last consumer frozen over [${peers.phaseSeconds}, ${3 * peers.phaseSeconds}) s; ` +
      `the server's CPU (utime + stime: /proc for a real server, process.cpuUsage() for our broker) over the stall ` +
      `per change it delivered; peak RSS: VmHWM. In brackets: ÷ the best real system's in this run (best: fan-out ` +
      `${best('fanout')}/s, healthy p50 before ${best('beforeP50')} ms, CPU ${best('cpu')} µs).`,
    '',
    '| target | fan-out to 3, no drop, /s | healthy p50 / p99 before the stall, ms | healthy p50 / p99 in the ' +
      'stall, ms | server CPU per delivery, µs | server peak RSS, MiB |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) =>
      row.missing !== null
        ? `| ${row.name} | ${row.missing} | | | | |`
        : `| ${row.name} | ${row.fanoutNoDrop === peers.rampRates.at(-1) ? '≥ ' : ''}` +
          `${withRatio(rows, row, 'fanout', 0)} | ${withRatio(rows, row, 'beforeP50', 1)} / ` +
          `${withRatio(rows, row, 'beforeP99', 1)} | ${withRatio(rows, row, 'duringP50', 1)} / ` +
          `${withRatio(rows, row, 'duringP99', 1)} | ${withRatio(rows, row, 'cpu', 1)} | ` +
          `${withRatio(rows, row, 'rss', 0)} |`,
    ),
  ];
}
