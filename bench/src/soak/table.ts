/**
 * The soak's tables, drawn from a stored result alone: `npm run soak` prints them after its runs,
 * and `npm run results` draws docs/RESULTS.md's soak section with them from bench/soak.json, so the
 * two never disagree. Type-only imports: loading this module starts nothing.
 */
import type { SoakResult, SoakRunResult } from './result.js';
import type { ProcessVerdict } from './rules.js';

const minutes = (seconds: number) => `${Math.round(seconds / 6) / 10} min`;
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
const point = (p: { rssMiB: number; fds: number } | null) => (p === null ? '–' : `${p.rssMiB} / ${p.fds}`);
const signed = (value: number, unit: string) => `${value > 0 ? '+' : ''}${Math.round(value * 100) / 100}${unit}`;
const pair = (values: [number, number] | null, unit: string) =>
  values === null ? '–' : `${signed(values[0], unit)}, ${signed(values[1], unit)}`;

/** One row per process a run judged: RSS (MiB) / descriptors at its start, after warm-up, at the end of publishing, and
 * the slopes over each half. */
function processRows(run: SoakRunResult): string[] {
  return run.processes
    .filter((p) => p.judged)
    .map(
      (p: ProcessVerdict) =>
        `| ${run.index} ${run.mode} | ${p.name} | ${point(p.start)} | ${point(p.warm)} | ${point(p.end)} | ` +
        `${pair(p.rssHalfSlopesPct, ' %')} | ${pair(p.fdHalfSlopes, '')} | ` +
        `${p.failures.length === 0 ? 'ok' : '**FAIL**'} |`,
    );
}

function diskLine(run: SoakRunResult): string[] {
  if (run.disk === null) return [];
  const { brokerLogBytes: log, dataDirBytes: dir } = run.disk;
  return [
    `- run ${run.index} (${run.mode}): the broker's log ${mib(log.start)} at its start, ${mib(log.end)} at the ` +
      `end of publishing (most ${mib(log.max)}); the whole data dir ${mib(dir.end)} (most ${mib(dir.max)})`,
  ];
}

/** The soak's result as markdown: what ran, the verdict, and the per-process table of the long runs. */
export function renderSoak(result: SoakResult): string[] {
  const { design, rules, runs } = result;
  const longs = runs.filter((r) => r.kind === 'long');
  const shorts = runs.filter((r) => r.kind === 'short');
  const leaked = runs.reduce((sum, r) => sum + r.survivors.length, 0);
  const unexplained = runs.reduce((sum, r) => sum + r.modes.reduce((s, m) => s + m.unexplained, 0), 0);
  const slowestExit = Math.max(0, ...runs.map((r) => r.lastGoneMs));
  const lines = [
    '## The soak',
    '',
    `\`npm run soak --${design.minutes === null ? '' : ` --minutes ${design.minutes}`}` +
      `${design.runs === null ? '' : ` --runs ${design.runs}`}${design.keepGoing ? ' --keep-going' : ''}\`, seeds ` +
      `${design.seed}–${design.seed + runs.length - 1}, measured ` +
      `${result.measuredAt.slice(0, 16).replace('T', ' ')} UTC (${result.machine.cpus} cores, Node ` +
      `${result.machine.node}).`,
    '',
    `${result.passed ? '**Passed**' : '**FAILED**'}${result.interrupted ? ' (interrupted)' : ''} after ` +
      `${minutes(result.wallSeconds)}: ${runs.length} runs, ${longs.length} long (${design.longMinutes} min each) ` +
      `and ${shorts.length} short (${design.shortDuration} s phases);`,
    `${unexplained} unexplained keys; ${leaked} processes left alive (the slowest run's last process was gone ` +
      `${slowestExit} ms after its orchestrator exited; the rule allows ${rules.graceMs} ms).`,
    // Each failure by its run's mode and seed: a long run's command (hundreds of written faults) is in the stored
    // result.
    ...runs
      .flatMap((r) => r.failures.map((f) => `- run ${r.index} (${r.kind}, ${r.mode}, seed ${r.seed}): ${f}`))
      .slice(0, 10),
    '',
    `Each long run's processes, judged after a ${rules.warmupSeconds} s warm-up up to the end of publishing: ` +
      `RSS (MiB) / open descriptors at the process's`,
    `first sample, after warm-up (the median of the next 10 samples) and at the end of publishing; the ` +
      `least-squares slopes over the first and the later`,
    `half of the span after warm-up, per minute (a process fails when both exceed the rule: RSS ` +
      `${rules.maxRssSlopePctPerMinute} % of its after-warm-up RSS, descriptors ${rules.maxFdSlopePerMinute}).`,
    '',
  ];
  const rows = longs.flatMap(processRows);
  if (rows.length === 0) lines.push('No long run: no process lived long enough to be judged for trends.');
  else
    lines.push(
      '| run | process | start | after warm-up | end of publishing | RSS slopes /min | fd slopes /min | |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    );
  const disk = longs.flatMap(diskLine);
  if (disk.length > 0) lines.push('', 'The durable data dir (allocated bytes, as `du`):', '', ...disk);
  return lines;
}
