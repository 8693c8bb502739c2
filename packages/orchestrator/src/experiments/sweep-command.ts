import { fitWidth, stdoutColumns } from '../report/fit-width.js';
import { writeFileSync } from 'node:fs';
import { UsageError } from '../model/errors.js';
import type { Options, RawOptions } from '../model/options.js';
import { silentProgress } from '../report/progress.js';
import { renderSweep, renderSweepHtml, renderSweepProgress, type SweepBy } from './sweep-report.js';
import type { ModeResult } from '../model/run-types.js';
import { sweepPoint } from './sweep-point.js';
import { runSeries } from './series.js';
import { normalizeOptions } from '../cli/normalize-options.js';
import { completedExit, judge, type Judgement } from '../cli/exit-code.js';
import { runSession } from '../cli/session.js';
import { announceSchedule } from '../cli/random-nemesis.js';

/** What `sweep` takes: the run's flags, with --rate and --keys as text (one of them a comma list). */
export type SweepArguments = Omit<RawOptions, 'rate' | 'keys'> & {
  rate?: string | undefined;
  keys?: string | undefined;
};

/** Parses "100,400,1600"; a single value is a plain number. */
function parseValues(flag: SweepBy, text: string): number[] {
  const values = text.split(',').map((part) => Number(part.trim()));
  if (values.some((v) => !Number.isFinite(v) || v <= 0))
    throw new UsageError(`sweep --${flag} takes positive numbers separated by commas, got ${text}`);
  return values;
}

/**
 * The runs of a sweep, every one checked before the first starts: the swept
 * flag takes two or more values, the other flags are those of a lossy run.
 */
export function planSweep(
  args: SweepArguments,
  environment: { stderrIsTTY: boolean },
): { by: SweepBy; runs: Options[] } {
  const rate = args.rate === undefined ? undefined : parseValues('rate', args.rate);
  const keys = args.keys === undefined ? undefined : parseValues('keys', args.keys);
  const given = { rate, keys };
  const lists = (['rate', 'keys'] as const).filter((flag) => (given[flag]?.length ?? 0) > 1);
  if (lists.length !== 1)
    throw new UsageError('sweep needs one of --rate or --keys with two or more values, e.g. sweep --rate 100,400,1600');
  const by = lists[0]!;
  const other = by === 'rate' ? { ...(keys && { keys: keys[0]! }) } : { ...(rate && { rate: rate[0]! }) };
  const { rate: _rate, keys: _keys, ...flags } = args;
  const runs = given[by]!.map((value) =>
    normalizeOptions({ ...flags, ...other, mode: 'lossy', [by]: value }, environment),
  );
  return { by, runs };
}

/** `orchestrator sweep --rate 100,400,1600` (or `--keys ...`): lossy at each point, damage against the expectation. */
export function sweepCommand(by: SweepBy, runs: Options[]): Promise<number> {
  const first = runs[0]!;
  // The draw reads neither --rate nor --keys: every point of the sweep has the same schedule.
  announceSchedule('orchestrator sweep', first);
  const log = { level: first.logLevel, file: first.logFile, mode: null };
  return runSession('orchestrator sweep', log, async (session) => {
    const onPoint = (point: Parameters<typeof renderSweepProgress>[1]) =>
      void (first.json || process.stderr.write(renderSweepProgress(by, point)));
    const judgements: Judgement[] = [];
    const measure = (result: ModeResult, { options }: { options: Options }) => {
      judgements.push(judge(result));
      return sweepPoint(result, options);
    };
    const points = await runSeries(
      runs.map((options) => ({ options })),
      { ...session, observer: silentProgress, measure, onPoint },
    );
    process.stdout.write(
      first.json
        ? JSON.stringify({ sweep: { by, points } }) + '\n'
        : fitWidth(renderSweep(by, points), stdoutColumns()),
    );
    if (first.report !== null) {
      writeFileSync(first.report, renderSweepHtml(by, points));
      process.stderr.write(`orchestrator sweep: HTML report written to ${first.report}\n`);
    }
    return completedExit('orchestrator sweep', judgements);
  });
}
