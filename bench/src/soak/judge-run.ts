import { diskFigures, type SoakRunResult } from './result.js';
import type { ProcessSeries } from './recorder.js';
import { judgeProcess, runFailures, type SoakRules } from './rules.js';
import type { RunRecord } from './run-once.js';
import type { SoakRun } from './schedule.js';

const SERIES_STEP_SECONDS = 30;

/** When publishing ended for this process: its mode's, or (the orchestrator, the guardian: every mode's) the last. */
function publishingEndOf(series: ProcessSeries, record: RunRecord): number | null {
  const ends = record.modes
    .filter((m) => series.mode === null || m.mode === series.mode)
    .map((m) => m.publishingEndedWall);
  if (ends.length === 0 || ends.some((end) => end === null)) return null;
  return Math.max(...(ends as number[]));
}

/** A judged process's series, thinned to one point per 30 s, for the stored result. */
function thinned(series: ProcessSeries): Array<[number, number, number]> {
  const first = series.samples[0]!.t;
  const points: Array<[number, number, number]> = [];
  let next = 0;
  for (const s of series.samples) {
    if (s.t - first < next) continue;
    points.push([Math.round(s.t - first), Math.round((s.rssKb / 1024) * 10) / 10, s.fds]);
    next += SERIES_STEP_SECONDS;
  }
  return points;
}

/** One run's record judged by the rules: what the stored result keeps of it. */
export function judgeRun(run: SoakRun, command: string, record: RunRecord, rules: SoakRules): SoakRunResult {
  const judged = record.processes.map((series) => ({
    series,
    verdict: judgeProcess(series, rules, publishingEndOf(series, record)),
  }));
  const verdicts = judged.map((j) => j.verdict);
  const lastPublishing = record.modes.map((m) => m.publishingEndedWall).filter((end): end is number => end !== null);
  const result: SoakRunResult = {
    index: run.index,
    kind: run.kind,
    mode: run.mode,
    seed: run.seed,
    command,
    faults: run.faults,
    schedule: record.schedule,
    wallSeconds: Math.round((record.endedAt - record.startedAt) * 10) / 10,
    exitCode: record.exitCode,
    modes: record.modes,
    survivors: record.survivors,
    lastGoneMs: record.lastGoneMs,
    processes: verdicts,
    disk: diskFigures(record.disk, lastPublishing.length === 0 ? null : Math.max(...lastPublishing)),
    failures: runFailures(record, verdicts),
  };
  if (run.kind === 'long')
    result.series = Object.fromEntries(
      judged.filter((j) => j.verdict.judged).map((j) => [`${j.series.name} ${j.series.pid}`, thinned(j.series)]),
    );
  return result;
}
