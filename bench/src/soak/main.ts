/**
 * npm run soak -- --minutes N | --runs N [--seed S] [--long-minutes L] [--short-runs K] [--short-duration D] [--out
 * PATH] [--keep-going]
 *
 * Runs the real demo back to back for N minutes, each run's faults drawn by the orchestrator's
 * nemesis from its own seed: long runs (minutes of publishing, so a leak in a long-lived process,
 * the broker above all, has time to show) and short ones between them. It samples every process of
 * every run each second (RSS, open descriptors; the durable data dir's bytes) and fails, exit 1
 * with a one-line reason, on an unexplained key, a process left alive after its run, or a
 * descriptor count or an RSS that keeps growing after warm-up (rules.ts, docs/SOAK.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitFlushed } from '@state-divergence/runtime';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DEFAULT_RULES } from './rules.js';
import { judgeRun } from './judge-run.js';
import type { SoakResult, SoakRunResult } from './result.js';
import { runOnce } from './run-once.js';
import { nextRun, type SoakDesign, type SoakRun } from './schedule.js';
import { renderSoak } from './table.js';
import { rulesText } from './rules-text.js';

const fail = (message: string): never => {
  process.stderr.write(`soak: ${message} (npm run soak -- --help says what each flag takes)\n`);
  // Nothing has run yet: exit now (stderr is written synchronously to a pipe or a file).
  process.exit(2);
};

const argv = yargs(hideBin(process.argv))
  .scriptName('npm run soak --')
  .usage(
    `$0 --minutes N | --runs N [options]\n\nRuns the demo back to back for N minutes (or N runs) under faults ` +
      `the orchestrator's nemesis draws from each run's seed (--nemesis random --seed S), samples every process ` +
      `of every run each second, and fails (exit 1, one line saying why) on:\n${rulesText(DEFAULT_RULES)}`,
  )
  .options({
    minutes: {
      type: 'number',
      describe: 'How long to soak: no run starts after this many minutes (the one running finishes)',
    },
    runs: {
      type: 'number',
      describe:
        'At most this many runs (with --minutes, whichever comes first; alone, e.g. --runs 50 --long-minutes 0: ' +
        'that many random schedules)',
    },
    seed: {
      type: 'number',
      default: 1,
      describe: "The first run's seed; each run takes the next, so a failing run is repeated alone from its line",
    },
    'long-minutes': {
      type: 'number',
      default: 8,
      describe:
        "A long run's length (2 s phases, publishing all along): one opens each cycle while one still fits; 0: " +
        'short runs only',
    },
    'short-runs': { type: 'number', default: 4, describe: 'Short runs after each long one' },
    'short-duration': { type: 'number', default: 1, describe: "A short run's --duration, seconds per phase" },
    out: {
      type: 'string',
      describe: 'Where to write the result [default: bench/soak.json, the stored result docs/RESULTS.md is drawn from]',
    },
    'keep-going': {
      type: 'boolean',
      default: false,
      describe: 'Go on after a failing run (default: stop there, its seed is the reproduction)',
    },
  })
  .strict()
  .fail((message, error) => fail(error?.message ?? message))
  .version(false)
  .wrap(null)
  .help()
  .parseSync();

const minimumLong = Math.ceil((DEFAULT_RULES.warmupSeconds + DEFAULT_RULES.judgedSeconds + 30) / 60);
const MAX_MINUTES = 24 * 60;
if (argv.minutes === undefined && argv.runs === undefined)
  fail('give --minutes N (how long to soak) or --runs N (how many runs), or both');
if (argv.minutes !== undefined && !(argv.minutes > 0 && argv.minutes <= MAX_MINUTES))
  fail(`--minutes must be more than 0 and at most ${MAX_MINUTES}, got ${argv.minutes}`);
if (argv.runs !== undefined && !(Number.isInteger(argv.runs) && argv.runs >= 1))
  fail(`--runs must be a whole number 1 or more, got ${argv.runs}`);

const longMinutes = argv['long-minutes'];
if (!(longMinutes === 0 || (longMinutes >= minimumLong && longMinutes <= 600))) {
  fail(
    `--long-minutes must be 0 (no long runs) or ${minimumLong}-600 (a long run must outlast the ` +
      `${DEFAULT_RULES.warmupSeconds} s warm-up and ${DEFAULT_RULES.judgedSeconds} s judged), got ${longMinutes}`,
  );
}
if (!(Number.isInteger(argv['short-runs']) && argv['short-runs'] >= 0))
  fail(`--short-runs must be a whole number 0 or more, got ${argv['short-runs']}`);
if (!(argv['short-duration'] >= 0.2 && argv['short-duration'] <= 60))
  fail(`--short-duration must be 0.2-60 seconds, got ${argv['short-duration']}`);
if (!Number.isInteger(argv.seed)) fail(`--seed must be a whole number, got ${argv.seed}`);

const design: SoakDesign = {
  minutes: argv.minutes ?? null,
  runs: argv.runs ?? null,
  seed: argv.seed,
  longMinutes,
  shortRuns: argv['short-runs'],
  shortDuration: argv['short-duration'],
  keepGoing: argv['keep-going'],
};
const out = argv.out ?? fileURLToPath(new URL('../../soak.json', import.meta.url));
const progress = (line: string) => process.stderr.write(`soak: ${line}\n`);

// One orchestrator at a time; a signal to the soak is passed to it once, so it reaps its own processes first.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort(signal));

const started = performance.now();
const clock = () => (performance.now() - started) / 1000;
const done: SoakRun[] = [];
const results: SoakRunResult[] = [];
const failures: string[] = [];
const next = () =>
  done.length >= (design.runs ?? Number.POSITIVE_INFINITY)
    ? null
    : nextRun(design, done, design.minutes === null ? Number.POSITIVE_INFINITY : design.minutes * 60 - clock());
for (let run = next(); run !== null && !stop.signal.aborted; run = next()) {
  done.push(run);
  const command = `npx orchestrator --mode ${run.mode} ${run.flags.join(' ')}`;
  progress(
    `run ${run.index} (${run.kind}, ~${Math.round(run.plannedSeconds)} s of phases, faults: ${run.faults}): ` +
      `${command.length > 300 ? `${command.slice(0, 300)}… (${run.flags.length} flags)` : command}`,
  );
  const record = await runOnce(run.mode, run.flags, {
    intervalMs: 1000,
    graceMs: DEFAULT_RULES.graceMs,
    clock,
    signal: stop.signal,
  });
  const result = judgeRun(run, command, record, DEFAULT_RULES);
  results.push(result);
  const judged = result.processes.filter((p) => p.judged).length;
  progress(
    `run ${run.index}: ${result.failures.length === 0 ? 'ok' : 'FAILED'} in ${result.wallSeconds} s (exit ` +
      `${record.exitCode}; ${result.processes.length} processes sampled, ${judged} judged for trends)`,
  );
  // A long run's command is hundreds of written faults: the line names it, the stored result holds it.
  const which =
    command.length <= 200
      ? command
      : `${run.mode}, seed ${run.seed}: its ${run.flags.length} flags are runs[${results.length - 1}].command in ` +
        `${out}`;
  failures.push(...result.failures.map((f) => `run ${run!.index} (${which}): ${f}`));
  if (failures.length > 0 && !design.keepGoing) break;
}

const soak: SoakResult = {
  version: 1,
  measuredAt: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
  design,
  rules: DEFAULT_RULES,
  wallSeconds: Math.round(clock()),
  passed: failures.length === 0 && !stop.signal.aborted,
  interrupted: stop.signal.aborted,
  failures,
  runs: results,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(soak, null, 1) + '\n');
process.stdout.write(renderSoak(soak).join('\n') + '\n');
if (stop.signal.aborted) {
  process.stderr.write(`soak: interrupted after ${results.length} runs; what ran is in ${out}\n`);
  await exitFlushed(stop.signal.reason === 'SIGTERM' ? 143 : 130, 'soak');
}
if (failures.length > 0) {
  process.stderr.write(
    `soak: FAILED: ${failures[0]}${failures.length > 1 ? ` (and ${failures.length - 1} more in ${out})` : ''}\n`,
  );
  await exitFlushed(1, 'soak');
}
const judgedCount = results.reduce((sum, r) => sum + r.processes.filter((p) => p.judged).length, 0);
process.stderr.write(
  `soak: passed: ${results.length} runs in ${Math.round(clock())} s, no unexplained key, nothing left running; ` +
    `${judgedCount} processes lived long enough to be judged for trends, none grew (${out})\n`,
);
