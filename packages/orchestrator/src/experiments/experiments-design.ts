import { MODES, type Mode } from '@state-divergence/protocol';
import {
  queueFor,
  type ChurnPoint,
  type HotnessPoint,
  type NetworkPoint,
  type OverlapPoint,
  type QueuePoint,
  type Regime,
} from './experiment-points.js';
import type { Options, RawOptions } from '../model/options.js';
import { normalizeOptions } from '../cli/normalize-options.js';

export const EXPERIMENTS = ['churn', 'queue', 'overlap', 'hotness', 'restart', 'network', 'systems'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];
/**
 * What runs without --only. Not `network`: its 20 runs took 92 s on 2 cores (the five others
 * together ~150 s), and the stored experiments (bench/experiments.json, docs/RESULTS.md) have no
 * section for it; `--only network` runs it. Not `systems` either: its 60 runs against the real
 * servers (systems-experiment.ts) take about 8 minutes two at a time.
 */
export const DEFAULT_EXPERIMENTS: readonly ExperimentName[] = EXPERIMENTS.filter(
  (e) => e !== 'network' && e !== 'systems',
);

/** One run of an experiment: what it varies, and the options it runs with. */
export type ExperimentRun =
  | { experiment: 'churn'; settings: Pick<ChurnPoint, 'keys' | 'rate' | 'regime' | 'queueCapacity'>; options: Options }
  | { experiment: 'queue'; settings: Pick<QueuePoint, 'capacity' | 'rate'>; options: Options }
  | { experiment: 'overlap'; settings: { windows: OverlapPoint['windows'] }; options: Options }
  | { experiment: 'hotness'; settings: { shape: HotnessPoint['shape'] }; options: Options }
  | { experiment: 'restart'; settings: { mode: Mode; consumers: number }; options: Options }
  | { experiment: 'network'; settings: Pick<NetworkPoint, 'fault' | 'size' | 'mode'>; options: Options };

/** What each experiment varies; chosen so every point drops events within short phases on 2 cores. */
export const DESIGN = {
  churn: {
    keys: [12, 300, 2000],
    rates: [300, 900, 2400],
    queueCapacity: 'rate / 8',
    regimes: ['silence', 'churn'] as Regime[],
  },
  queue: { capacities: [64, 128, 256, 512, 1024], rate: 1600 },
  overlap: { consumers: 5, rate: 800 },
  hotness: { rate: 1200, shapes: ['silence', 'churn', 'drop-oldest'] },
  /**
   * The broker SIGKILLed at the end of the first phase and started again a phase later; no
   * consumer is faulted. Publishing goes on for two phases after the restart, so the restarted
   * broker learns keys again and a relist carries what it knows by then. Times in phases.
   */
  restart: {
    modes: ['lossy', 'resync', 'durable'] as Mode[],
    consumers: [3, 10, 25],
    rate: 400,
    crash: { from: 1, to: 2 },
    publishUntil: 4,
  },
  /**
   * The last of three consumers cut off from the broker (a partition of `partitions` seconds: one
   * shorter and one longer than the QUIC idle timeout, which is shortened to `idleTimeout` seconds
   * so the longer one stays short), or on a lossy link (`losses` %, for `lossSeconds`), from the end
   * of the first phase, under every mode. Loss 0 goes through the relay with nothing dropped: the
   * baseline. `rate` overflows the default queue (512 events) within the short partition.
   */
  network: {
    modes: [...MODES] as Mode[],
    consumer: 'consumer-3',
    idleTimeout: 2,
    partitions: [1, 4],
    losses: [0, 5, 20],
    lossSeconds: 2,
    rate: 800,
  },
} as const;

/** The restart experiment's design, its modes and consumer counts narrowed by `--restart-modes` /
 * `--restart-consumers`. */
export interface RestartDesign {
  modes: readonly Mode[];
  consumers: readonly number[];
  rate: number;
  crash: { from: number; to: number };
  publishUntil: number;
}

/**
 * Every run of the chosen experiments, each checked by normalizeOptions before
 * anything starts. Phases are `duration` long; `churn` publishes for two phases
 * after the stall ([d, 3d)), `silence` stops when it ends (the seed's rule).
 */
export function designExperiments(
  only: readonly ExperimentName[],
  base: RawOptions,
  environment: { stderrIsTTY: boolean },
  restartDesign: RestartDesign = DESIGN.restart,
): ExperimentRun[] {
  const d = base.duration ?? 0.5;
  const run = (mode: Mode, raw: RawOptions) =>
    normalizeOptions({ ...base, duration: d, ...raw, mode, json: true, tui: false }, environment);
  const lossy = (raw: RawOptions) => run('lossy', raw);
  const churnAfter = (regime: string) => (regime === 'churn' ? { publishUntil: 5 * d } : {});
  const runs: ExperimentRun[] = [];
  if (only.includes('churn')) {
    const { keys: keyspaces, rates, regimes } = DESIGN.churn;
    for (const keys of keyspaces) {
      for (const rate of rates) {
        for (const regime of regimes)
          runs.push({
            experiment: 'churn',
            settings: { keys, rate, regime, queueCapacity: queueFor(rate) },
            options: lossy({ keys, rate, queueCapacity: queueFor(rate), ...churnAfter(regime) }),
          });
      }
    }
  }
  if (only.includes('queue')) {
    const { capacities, rate } = DESIGN.queue;
    for (const capacity of capacities)
      runs.push({
        experiment: 'queue',
        settings: { capacity, rate },
        options: lossy({ rate, queueCapacity: capacity }),
      });
  }
  if (only.includes('overlap')) {
    const { consumers, rate } = DESIGN.overlap;
    const queueCapacity = queueFor(rate);
    const same = [`consumer-2@${d}-${3 * d}`, `consumer-4@${d}-${3 * d}`];
    const staggered = [`consumer-2@${d}-${2 * d}`, `consumer-4@${2 * d}-${3 * d}`];
    runs.push({
      experiment: 'overlap',
      settings: { windows: 'same' },
      options: lossy({ consumers, rate, queueCapacity, stall: same }),
    });
    runs.push({
      experiment: 'overlap',
      settings: { windows: 'staggered' },
      options: lossy({ consumers, rate, queueCapacity, stall: staggered }),
    });
  }
  if (only.includes('hotness')) {
    const { rate, shapes } = DESIGN.hotness;
    const queueCapacity = queueFor(rate);
    for (const shape of shapes) {
      const extra = shape === 'drop-oldest' ? { overflow: 'drop-oldest' } : churnAfter(shape);
      runs.push({ experiment: 'hotness', settings: { shape }, options: lossy({ rate, queueCapacity, ...extra }) });
    }
  }
  if (only.includes('restart')) {
    const { modes, consumers: counts, rate, crash, publishUntil } = restartDesign;
    const window = `broker@${crash.from * d}-${crash.to * d}`;
    for (const mode of modes) {
      for (const consumers of counts)
        runs.push({
          experiment: 'restart',
          settings: { mode, consumers },
          options: run(mode, { consumers, rate, crash: [window], publishUntil: publishUntil * d }),
        });
    }
  }
  if (only.includes('network')) runs.push(...networkRuns(run, d));
  return runs;
}

/** The network experiment's runs (DESIGN.network), partitions first, each fault under every mode. */
function networkRuns(run: (mode: Mode, raw: RawOptions) => Options, d: number): ExperimentRun[] {
  const { modes, consumer, idleTimeout, partitions, losses, lossSeconds, rate } = DESIGN.network;
  const runs: ExperimentRun[] = [];
  const window = (seconds: number) => `${consumer}@${d}-${d + seconds}`;
  for (const size of partitions) {
    for (const mode of modes)
      runs.push({
        experiment: 'network',
        settings: { fault: 'partition', size, mode },
        options: run(mode, { rate, idleTimeout, partition: [window(size)] }),
      });
  }
  for (const size of losses) {
    for (const mode of modes) {
      // --loss takes 1-100 %: the baseline is asked for at 1 % and run at 0, through the same relay (described as
      // 'through a relay, no loss', never as a flag).
      const options = run(mode, { rate, idleTimeout, loss: [`${window(lossSeconds)}:${Math.max(1, size)}`] });
      const faults = options.faults.map((f) => (f.kind === 'loss' ? { ...f, lossPct: size } : f));
      runs.push({ experiment: 'network', settings: { fault: 'loss', size, mode }, options: { ...options, faults } });
    }
  }
  return runs;
}
