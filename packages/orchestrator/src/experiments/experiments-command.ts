import { fitWidth, stdoutColumns } from '../report/fit-width.js';
import { writeFileSync } from 'node:fs';
import { churnPoint, hotnessPoint, networkPoint, overlapPoint, queuePoint, restartPoint } from './experiment-points.js';
import { experimentsDocument, type ExperimentPoint } from './experiments-document.js';
import type { ModeResult } from '../model/run-types.js';
import { renderExperimentsHtml } from './experiments-html.js';
import { renderExperiments } from './experiments-text.js';
import { silentProgress } from '../report/progress.js';
import { runSeries } from './series.js';
import type { Mode } from '@state-divergence/protocol';
import type { Argv } from 'yargs';
import { UsageError } from '../model/errors.js';
import {
  DEFAULT_EXPERIMENTS,
  DESIGN,
  designExperiments,
  EXPERIMENTS,
  type ExperimentName,
  type ExperimentRun,
  type RestartDesign,
} from './experiments-design.js';
import { completedExit, judge, type Judgement } from '../cli/exit-code.js';
import { EXIT, runSession, type Session } from '../cli/session.js';
import type { SystemsPoint } from './systems-points.js';
import { normalizeOptions } from '../cli/normalize-options.js';
import type { LogSettings } from '@state-divergence/protocol';
import { SYSTEMS_DESIGN, type SystemsDesign } from './systems-design.js';
import { SYSTEM_KNOBS } from '@state-divergence/systems/knobs';

function measure(result: ModeResult, run: ExperimentRun): ExperimentPoint {
  switch (run.experiment) {
    case 'churn':
      return { experiment: 'churn', point: churnPoint(result, run.settings) };
    case 'queue':
      return { experiment: 'queue', point: queuePoint(result, run.settings) };
    case 'overlap':
      return { experiment: 'overlap', point: overlapPoint(result, run.settings.windows) };
    case 'hotness':
      return { experiment: 'hotness', point: hotnessPoint(result, run.settings.shape) };
    case 'restart':
      return { experiment: 'restart', point: restartPoint(result, run.settings.consumers) };
    case 'network':
      return { experiment: 'network', point: networkPoint(result, run.settings) };
  }
}

const progressLine = (p: ExperimentPoint): string => `experiments: ${p.experiment} ${JSON.stringify(p.point)}\n`;

export const EXPERIMENTS_SUMMARY =
  'The seed\'s "How to extend", measured: churn, queue, overlap and hotness beside the expectation; a broker ' +
  'restart per mode; a network fault per mode (--only network); where each real system breaks (--only systems)';

const EXPERIMENTS_DESCRIPTION =
  'Churn, queue, overlap and hotness: 28 lossy runs at short phases (about 2 minutes on 2 cores), each\n' +
  "stalled consumer's damage beside what the workload's key probabilities predict from what it missed.\n" +
  'Restart: the broker killed and started again under lossy, resync and durable with 3, 10 and 25\n' +
  'consumers (9 runs, about 40 s): keys wrong at the end, bytes sent to bring the consumers back, and\n' +
  'the time until all were correct. All five: about 2.7 minutes.\n' +
  "Network (only with --only): one consumer's link partitioned 1 s and 4 s (QUIC idle timeout 2 s) or\n" +
  'losing 0, 5, 20 % of datagrams, under every mode (20 runs, about 1.5 minutes): keys wrong, healthy and\n' +
  "faulted p99, the faulted consumer's stale time.\n" +
  'Systems (only with --only): every installed real system × idiom, a consumer frozen 2, 8, 20 s at 400 and\n' +
  "2,000/s (60 runs, two at a time, about 8 minutes), then each naive idiom's edge bisected at the first rate\n" +
  "beside what its system's limit predicts (--systems-only, --stalls, --rates narrow it).";

/** A comma list of `what`, each one of `allowed` (in `allowed`'s order); undefined: all of them. */
function commaList<T extends string | number>(
  flag: string,
  text: string | undefined,
  allowed: readonly T[],
  parse: (s: string) => T,
): T[] {
  if (text === undefined) return [...allowed];
  const given = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parse);
  if (given.length === 0 || given.some((g) => !allowed.includes(g)))
    throw new UsageError(`${flag} takes a comma list of ${allowed.join(', ')}, got ${text}`);
  return allowed.filter((a) => given.includes(a));
}

/** `--restart-modes durable --restart-consumers 3`: the restart experiment, narrowed (each run of 25 consumers is the
 * slow part). */
function restartDesign(args: ExperimentsArguments, only: ExperimentName[]): RestartDesign {
  const narrowed = args.restartModes !== undefined || args.restartConsumers !== undefined;
  if (narrowed && !only.includes('restart'))
    throw new UsageError(
      '--restart-modes and --restart-consumers narrow the restart experiment; add restart to --only',
    );
  return {
    ...DESIGN.restart,
    modes: commaList('--restart-modes', args.restartModes, DESIGN.restart.modes, (s) => s as Mode),
    consumers: commaList('--restart-consumers', args.restartConsumers, DESIGN.restart.consumers, Number),
  };
}

/** `--systems-only etcd --stalls 2 --rates 400`: the systems experiment, narrowed (a full grid takes minutes). */
function systemsDesign(args: ExperimentsArguments, only: ExperimentName[]): SystemsDesign | null {
  const narrowed = [args.systemsOnly, args.stalls, args.rates].some((a) => a !== undefined);
  if (!only.includes('systems')) {
    if (narrowed)
      throw new UsageError('--systems-only, --stalls and --rates narrow the systems experiment; add systems to --only');
    return null;
  }
  const positive = (flag: string) => (s: string) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} takes positive numbers, got ${s}`);
    return n;
  };
  const numbers = (flag: string, text: string | undefined, fallback: readonly number[]) =>
    text === undefined
      ? fallback
      : [
          ...new Set(
            text
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
              .map(positive(flag)),
          ),
        ];
  // The systems' names, without loading their clients.
  const names = SYSTEM_KNOBS.map((s) => s.name);
  const systems =
    args.systemsOnly === undefined ? null : commaList('--systems-only', args.systemsOnly, names, (s) => s);
  const stalls = [...numbers('--stalls', args.stalls, SYSTEMS_DESIGN.stalls)].sort((a, b) => a - b);
  const rates = numbers('--rates', args.rates, SYSTEMS_DESIGN.rates);
  if (stalls.length === 0 || rates.length === 0)
    throw new UsageError('--stalls and --rates take a comma list of numbers');
  return { ...SYSTEMS_DESIGN, systems, stalls, rates };
}

/** `--only churn,hotness`: which experiments, each named once; none named: the default ones. */
function parseExperiments(text: string | undefined): ExperimentName[] {
  if (text === undefined) return [...DEFAULT_EXPERIMENTS];
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(EXPERIMENTS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0)
    throw new UsageError(`--only takes a comma list of ${EXPERIMENTS.join(', ')}, got ${text}`);
  return EXPERIMENTS.filter((e) => names.includes(e));
}

export function experimentsArguments<T>(parser: Argv<T>) {
  return parser
    .usage(
      `$0 experiments [--only ${EXPERIMENTS.join(',')}] [--duration S] [--json] [--report PATH]\n\n` +
        `${EXPERIMENTS_DESCRIPTION}`,
    )
    .options({
      only: {
        type: 'string',
        describe: `Comma list of experiments to run [default: ${DEFAULT_EXPERIMENTS.join(',')}]`,
      },
      duration: { type: 'number', default: 0.5, describe: 'Seconds per phase (longer phases: more drops, slower)' },
      seed: { type: 'number', default: 1, describe: 'PRNG seed: the same seed gives the same changes' },
      json: { type: 'boolean', default: false, describe: 'Print one JSON document: {"experiments": {...}}' },
      report: { type: 'string', describe: 'Also write a self-contained HTML report, a chart per experiment' },
      'log-file': { type: 'string', describe: "Append every process's NDJSON log here [default: stderr]" },
      'log-level': { type: 'string', describe: 'trace…silent [default: warn]' },
      'restart-modes': {
        type: 'string',
        describe: `The restart experiment's modes, a comma list [default: ${DESIGN.restart.modes.join(',')}]`,
      },
      'restart-consumers': {
        type: 'string',
        describe: `The restart experiment's consumer counts [default: ${DESIGN.restart.consumers.join(',')}]`,
      },
      'systems-only': {
        type: 'string',
        describe: "The systems experiment's systems, a comma list [default: every installed one]",
      },
      stalls: {
        type: 'string',
        describe:
          `The systems experiment's stall lengths, seconds; the longest bounds the edge's bisection ` +
          `[default: ${SYSTEMS_DESIGN.stalls.join(',')}]`,
      },
      rates: {
        type: 'string',
        describe:
          `The systems experiment's rates, changes/s; the edge is bisected at the first ` +
          `[default: ${SYSTEMS_DESIGN.rates.join(',')}]`,
      },
    });
}

type ExperimentsArguments = {
  only?: string | undefined;
  duration: number;
  seed: number;
  json: boolean;
  report?: string | undefined;
  logFile?: string | undefined;
  logLevel?: string | undefined;
  restartModes?: string | undefined;
  restartConsumers?: string | undefined;
  systemsOnly?: string | undefined;
  stalls?: string | undefined;
  rates?: string | undefined;
};

/** `orchestrator experiments`: the seed's "How to extend", each a measured table beside the expectation. */
export function experimentsCommand(args: ExperimentsArguments, environment: { stderrIsTTY: boolean }): Promise<number> {
  const base = { duration: args.duration, seed: args.seed, logFile: args.logFile, logLevel: args.logLevel ?? 'warn' };
  const only = parseExperiments(args.only);
  const restart = restartDesign(args, only);
  const systems = systemsDesign(args, only);
  const runs = designExperiments(only, base, environment, restart);
  // The log settings as normalizeOptions checks them, from a run of ours or (systems alone) one made for the purpose.
  const { logLevel, logFile } = runs[0]?.options ?? normalizeOptions({ ...base, json: true, tui: false }, environment);
  return runExperiments(runs, {
    json: args.json,
    report: args.report ?? null,
    duration: args.duration,
    seed: args.seed,
    design: { ...DESIGN, restart },
    systems,
    log: { level: logLevel, file: logFile, mode: null },
  });
}

/** "28 lossy, 3 resync runs" */
function runsByMode(runs: ExperimentRun[]): string {
  const counts = new Map<string, number>();
  for (const run of runs) for (const mode of run.options.modes) counts.set(mode, (counts.get(mode) ?? 0) + 1);
  return `${[...counts].map(([mode, n]) => `${n} ${mode}`).join(', ')} run${runs.length === 1 ? '' : 's'}`;
}

/** The systems experiment, its clients loaded only now (as `--system` loads systems-run/), each point on stderr. */
async function runSystems(duration: number, session: Session, design: SystemsDesign) {
  const { runSystemsExperiment } = await import('./systems-experiment.js');
  const progress = (p: SystemsPoint) => void process.stderr.write(`experiments: systems ${JSON.stringify(p)}\n`);
  return runSystemsExperiment(duration, session, progress, design);
}

function runExperiments(
  runs: ExperimentRun[],
  output: {
    json: boolean;
    report: string | null;
    duration: number;
    seed: number;
    design: unknown;
    systems: SystemsDesign | null;
    log: LogSettings;
  },
): Promise<number> {
  return runSession('orchestrator experiments', output.log, async (session) => {
    if (runs.length > 0) process.stderr.write(`experiments: ${runsByMode(runs)} of ${output.duration} s phases\n`);
    const judgements: Judgement[] = [];
    const judged = (result: ModeResult, run: ExperimentRun) => {
      judgements.push(judge(result));
      return measure(result, run);
    };
    const results = await runSeries(runs, {
      ...session,
      observer: silentProgress,
      measure: judged,
      onPoint: (p) => void process.stderr.write(progressLine(p)),
    });
    // The real systems' clients load only when asked for (as `--system` loads systems-run/).
    const systems = output.systems === null ? undefined : await runSystems(output.duration, session, output.systems);
    const unexplained = systems?.points.reduce((sum, p) => sum + p.unexplained, 0) ?? 0;
    const design = output.systems === null ? output.design : { ...(output.design as object), systems: output.systems };
    const document = experimentsDocument(results, { duration: output.duration, seed: output.seed, design }, systems);
    process.stdout.write(
      output.json ? JSON.stringify(document) + '\n' : fitWidth(renderExperiments(document), stdoutColumns()),
    );
    if (output.report !== null) {
      writeFileSync(output.report, renderExperimentsHtml(document));
      process.stderr.write(`orchestrator experiments: HTML report written to ${output.report}\n`);
    }
    // A wrong key the evidence does not explain is a finding: exit 3, as `orchestrator --system` does.
    if (unexplained > 0) {
      process.stderr.write(`orchestrator experiments: ${unexplained} wrong keys of the systems unexplained\n`);
      return EXIT.incomplete;
    }
    return completedExit('orchestrator experiments', judgements);
  });
}
