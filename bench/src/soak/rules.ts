import { linearRegression, median } from 'simple-statistics';
import type { ProcessSample, ProcessSeries } from './recorder.js';
import type { RunRecord } from './run-once.js';

/**
 * The soak's pass rules, stated once: docs/SOAK.md and `npm run soak -- --help` quote these
 * values, and the stored result records the ones it was judged by.
 */
export interface SoakRules {
  /** A process's first W seconds are its warm-up (start, JIT, heaps and buffers growing to their working size): no
   * trend is judged in them. */
  warmupSeconds: number;
  /** A process is judged for trends only when sampled at least this long after its warm-up: a shorter series cannot
   * tell a leak from noise. */
  judgedSeconds: number;
  /** The least-squares slopes of its open-descriptor count over the two halves of its span after warm-up, descriptors
   * per minute, must not both exceed this. */
  maxFdSlopePerMinute: number;
  /** The same of its RSS, as % of its RSS at the end of warm-up per minute. */
  maxRssSlopePctPerMinute: number;
  /** A process of the run still alive this long after its orchestrator exited is leaked. */
  graceMs: number;
}

export const DEFAULT_RULES: SoakRules = {
  warmupSeconds: 180,
  judgedSeconds: 120,
  maxFdSlopePerMinute: 1,
  maxRssSlopePctPerMinute: 1,
  graceMs: 2000,
};

/** One process's figures and what the trend rules say of them. */
export interface ProcessVerdict {
  name: string;
  mode: string | null;
  pid: number;
  /** Seconds between its first and last sample judged (up to the end of publishing). */
  sampledSeconds: number;
  /** True when it lived long enough to be judged (warm-up plus the judged span). */
  judged: boolean;
  /** RSS (MiB) and descriptors at its first sample, at the end of warm-up (the median of its first 10 samples after it)
   * and at its last sample judged. */
  start: { rssMiB: number; fds: number };
  warm: { rssMiB: number; fds: number } | null;
  end: { rssMiB: number; fds: number };
  /** At its very last sample (after the drain and the report, if it lived that long). */
  last: { rssMiB: number; fds: number };
  /** Least-squares slopes after warm-up: over the whole span, and over each half (what the rules judge). */
  fdSlopePerMinute: number | null;
  fdHalfSlopes: [number, number] | null;
  rssSlopeMiBPerMinute: number | null;
  rssSlopePctPerMinute: number | null;
  /** % of its RSS after warm-up, per minute. */
  rssHalfSlopesPct: [number, number] | null;
  /** Each broken rule, a sentence; [] when it kept them (or was not judged). */
  failures: string[];
}

const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;
const round = (value: number, places = 3) => Math.round(value * 10 ** places) / 10 ** places;

/** The least-squares slope of `value` over the samples, per minute of their own clock. */
function slopePerMinute(samples: ProcessSample[], value: (s: ProcessSample) => number): number {
  const first = samples[0]!.t;
  return linearRegression(samples.map((s) => [(s.t - first) / 60, value(s)])).m;
}

/** The two halves of a span, each with its own least-squares slope: the first and the later half. */
function halves(samples: ProcessSample[]): [ProcessSample[], ProcessSample[]] {
  const from = samples[0]!.t;
  const mid = from + (samples[samples.length - 1]!.t - from) / 2;
  return [samples.filter((s) => s.t <= mid), samples.filter((s) => s.t >= mid)];
}

/**
 * The trend rules applied to one process's series, over its samples up to `until` (wall ms: when
 * publishing ended; null: all of them). What comes after is the drain and the report, a run's
 * one-off end, not its steady state: the orchestrator checks every copy then, the broker serves
 * its last requests, and a heap that grows once at the end is no leak.
 *
 * "Keeps growing" is growth in both halves of the span after warm-up: a leak grows all along,
 * while a one-off step (a doubled array of samples, a heap that grew once for a burst of faults and
 * was not given back) lands in one half. One slope over the whole span cannot tell them apart: a
 * step near its end weighs as much as a steady climb.
 */
export function judgeProcess(series: ProcessSeries, rules: SoakRules, until: number | null = null): ProcessVerdict {
  const samples = until === null ? series.samples : series.samples.filter((s, i) => i === 0 || s.wall <= until);
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const sampledSeconds = last.t - first.t;
  const final = series.samples[series.samples.length - 1]!;
  const at = (s: ProcessSample) => ({ rssMiB: mib(s.rssKb), fds: s.fds });
  const base = {
    name: series.name,
    mode: series.mode,
    pid: series.pid,
    sampledSeconds: round(sampledSeconds, 1),
    start: at(first),
    end: at(last),
    last: at(final),
  };
  const after = samples.filter((s) => s.t - first.t >= rules.warmupSeconds);
  const judged = sampledSeconds >= rules.warmupSeconds + rules.judgedSeconds && after.length >= 6;
  if (!judged)
    return {
      ...base,
      judged,
      warm: null,
      fdSlopePerMinute: null,
      fdHalfSlopes: null,
      rssSlopeMiBPerMinute: null,
      rssSlopePctPerMinute: null,
      rssHalfSlopesPct: null,
      failures: [],
    };
  const head = after.slice(0, 10);
  const warm = { rssKb: median(head.map((s) => s.rssKb)), fds: median(head.map((s) => s.fds)) };
  const parts = halves(after);
  const fds = (s: ProcessSample) => s.fds;
  const rssPct = (s: ProcessSample) => (s.rssKb / warm.rssKb) * 100;
  const fdHalves = parts.map((part) => slopePerMinute(part, fds)) as [number, number];
  const rssHalves = parts.map((part) => slopePerMinute(part, rssPct)) as [number, number];
  const who = `${series.mode === null ? '' : `${series.mode} `}${series.name} (pid ${series.pid})`;
  const span = `over both halves of the ${Math.round(last.t - after[0]!.t)} s after a ${rules.warmupSeconds} s warm-up`;
  const both = (pair: [number, number], unit: string) => `${round(pair[0], 2)}${unit} then ${round(pair[1], 2)}${unit}`;
  const failures: string[] = [];
  if (fdHalves.every((slope) => slope > rules.maxFdSlopePerMinute)) {
    failures.push(
      `${who}: open descriptors grew ${both(fdHalves, '/min')} ${span} (${warm.fds} -> ${last.fds}; the rule: ` +
        `not both above ${rules.maxFdSlopePerMinute}/min)`,
    );
  }
  if (rssHalves.every((slope) => slope > rules.maxRssSlopePctPerMinute)) {
    failures.push(
      `${who}: RSS climbed ${both(rssHalves, ' %/min')} ${span} (${mib(warm.rssKb)} -> ${mib(last.rssKb)} MiB; ` +
        `the rule: not both above ${rules.maxRssSlopePctPerMinute} %/min of its RSS after warm-up)`,
    );
  }
  const rssSlopeKb = slopePerMinute(after, (s) => s.rssKb);
  return {
    ...base,
    judged,
    warm: { rssMiB: mib(warm.rssKb), fds: warm.fds },
    fdSlopePerMinute: round(slopePerMinute(after, fds)),
    fdHalfSlopes: [round(fdHalves[0]), round(fdHalves[1])],
    rssSlopeMiBPerMinute: round(rssSlopeKb / 1024),
    rssSlopePctPerMinute: round((rssSlopeKb / warm.rssKb) * 100),
    rssHalfSlopesPct: [round(rssHalves[0]), round(rssHalves[1])],
    failures,
  };
}

/**
 * Everything wrong with one run, each a sentence: it failed or its document cannot be read, a key
 * the checker could not explain (or a verdict it could not reach: then nothing says the keys are
 * explained), a process left alive, a trend broken. [] is a pass.
 */
export function runFailures(run: RunRecord, verdicts: ProcessVerdict[]): string[] {
  const failures: string[] = [];
  if (run.exitCode !== 0)
    failures.push(
      `the orchestrator exited ${run.exitCode ?? 'on a signal'}` +
        `${run.stderrTail.length > 0 ? `: ${run.stderrTail[run.stderrTail.length - 1]}` : ''}`,
    );
  if (run.documentError !== null) failures.push(run.documentError);
  for (const m of run.modes) {
    if (m.unexplained > 0) failures.push(`${m.mode}: ${m.unexplained} wrong key(s) the checker could not explain`);
    if (m.verdict === 'unknown')
      failures.push(`${m.mode}: the checker's verdict is unknown, so no key is known to be explained`);
  }
  for (const s of run.survivors) {
    failures.push(
      `${s.name} (pid ${s.pid}) still alive${s.state === 'T' ? ', stopped (SIGSTOP),' : ` (state ${s.state})`} ` +
        `${run.lastGoneMs} ms after the orchestrator exited`,
    );
  }
  for (const v of verdicts) failures.push(...v.failures);
  return failures;
}
