import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { LOG_LEVELS } from '@state-divergence/protocol';
import { RunError, UsageError } from './errors.js';
import { DEFAULTS, MODE_CHOICES, normalizeOptions, type Options, type RawOptions } from './options.js';
import { silentProgress, textProgress } from './progress.js';
import { renderClosing, renderMode } from './render-text.js';
import { toJsonConfig, toJsonRun, type JsonDocument, type JsonRun } from './render-json.js';
import { analyzeLog } from './analyze.js';
import { parsePoints, renderSweep, renderSweepHtml, sweep } from './sweep.js';
import { liveView } from './tui.js';
import { renderHtml } from './render-html.js';
import { writeFileSync } from 'node:fs';
import { createLogger } from '@state-divergence/runtime';
import { runMode, type ChildRegistry } from './run-mode.js';

/**
 * 0 the run completed (divergence under lossy is the expected result, not a failure);
 * 1 the run failed; 2 bad input; 3 it completed but a consumer ended early or could not
 * be checked; 128 + n for signal n (130 SIGINT, 143 SIGTERM).
 */
const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3 } as const;
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

function parseArguments(argv: string[], sweepBy?: 'rate' | 'keys'): RawOptions {
  const parser = yargs(argv)
    .scriptName('orchestrator')
    .usage('$0 [options]\n\nRuns the state-divergence demo: a broker, a publisher and N consumers as separate processes over QUIC;\nfreezes the stalled consumers with SIGSTOP, resumes them with SIGCONT, and diffs every local copy against the authority.')
    .options({
      rate: { type: 'number', default: DEFAULTS.rate, describe: 'Changes published per second' },
      keys: { type: 'number', default: DEFAULTS.keys, describe: 'Size of the config keyspace' },
      consumers: { type: 'number', default: DEFAULTS.consumers, describe: 'Consumer count; must be at least 2' },
      payload: { type: 'number', default: DEFAULTS.payload, describe: 'Payload bytes per change' },
      'queue-capacity': { type: 'number', default: DEFAULTS.queueCapacity, describe: 'Subscriber queue depth at the broker' },
      duration: { type: 'number', default: DEFAULTS.duration, describe: 'Seconds per phase; a run is 5 phases' },
      mode: { type: 'string', default: DEFAULTS.mode, describe: `${MODE_CHOICES.join(', ')} (both: lossy + lossless; all: the three)` },
      stall: { type: 'array', string: true, describe: 'Consumer(s) to freeze, repeatable or comma-separated [default: the last]' },
      seed: { type: 'number', default: DEFAULTS.seed, describe: 'PRNG seed: the same seed gives the same changes' },
      'delete-ratio': { type: 'number', default: DEFAULTS.deleteRatio, describe: 'Fraction of changes that delete their key' },
      'rogue-frames': { type: 'number', default: DEFAULTS.rogueFrames, describe: 'A hostile client sends this many bad frames during the run (wrong pin, wrong token, garbage); the outcome must not change' },
      'join-late': { type: 'string', describe: 'A consumer that subscribes only when the stall starts (snapshot under resync, latest otherwise)' },
      tui: { type: 'boolean', default: DEFAULTS.tui, describe: 'Terminal UI (--no-tui for plain text)' },
      json: { type: 'boolean', default: DEFAULTS.json, describe: 'Print one JSON document on stdout instead of the report' },
      report: { type: 'string', describe: 'Write a self-contained HTML report (charts, cost table) to this path after the run' },
      'log-file': { type: 'string', describe: 'Append every process\'s NDJSON log here [default: stderr]' },
      'log-level': { type: 'string', describe: `${LOG_LEVELS.join(', ')} [default: info; warn when stderr is a terminal]` },
    })
    .epilog(
      'Also:\n  orchestrator analyze <log> [--json]   rebuild the report, or the --json document, from a --log-file log\n' +
        '  orchestrator sweep --rate 100,400,1600 [flags]   (or --keys ...) lossy at each point: damage against the expectation',
    )
    .strict()
    .version(false)
    .help()
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((message, error) => {
      throw new UsageError(error?.message ?? message);
    });
  // A sweep takes one of --rate / --keys as a comma list; everything else as for a run.
  if (sweepBy) parser.option(sweepBy, { type: 'string', describe: `Comma-separated ${sweepBy} values to sweep` });
  return parser.parseSync() as RawOptions;
}

/** The closing part of the report: the closing summary, or the whole --json document; and the HTML report if asked. */
function printDocument(document: JsonDocument, json: boolean, reportPath: string | null = document.config.report): void {
  process.stdout.write(json ? JSON.stringify(document) + '\n' : renderClosing(document.runs, document.config));
  if (reportPath !== null) {
    writeFileSync(reportPath, renderHtml(document));
    process.stderr.write(`orchestrator: HTML report written to ${reportPath}\n`);
  }
}

/** `orchestrator analyze LOG [--json]`: the same report (or document), from a log file alone. */
function analyze(argv: string[]): number {
  try {
    const args = yargs(argv)
      .scriptName('orchestrator analyze')
      .usage('$0 <log> [--json]\n\nRebuilds a run\'s report from its NDJSON log (--log-file): the same text, or with --json the same document.')
      .options({
        json: { type: 'boolean', default: false, describe: 'Print the --json document' },
        report: { type: 'string', describe: 'Also write the HTML report to this path' },
      })
      .demandCommand(1, 1, 'give the log file to analyze', 'give exactly one log file')
      .strict()
      .version(false)
      .help()
      .fail((message, error) => {
        throw new UsageError(error?.message ?? message);
      })
      .parseSync();
    const document = analyzeLog(String(args._[0]));
    if (!args.json) for (const run of document.runs) process.stdout.write('\n' + renderMode(run, document.config) + '\n');
    printDocument(document, args.json, args.report ?? null);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`orchestrator analyze: ${error.message.split('\n')[0]} (see analyze --help)\n`);
    return EXIT.usage;
  }
}

/** `orchestrator sweep --rate 100,400,1600` (or `--keys ...`): lossy at each point, damage against the expectation. */
async function runSweep(argv: string[]): Promise<number> {
  const by = argv.some((a) => a === '--keys' || a.startsWith('--keys=')) ? 'keys' : 'rate';
  let raw: RawOptions;
  let points: number[];
  try {
    raw = parseArguments(argv, by);
    const list = (raw as Record<string, unknown>)[by];
    if (typeof list !== 'string') throw new UsageError('sweep needs --rate or --keys with a comma list, e.g. sweep --rate 100,400,1600');
    points = parsePoints(by, list);
    delete (raw as Record<string, unknown>)[by];
    for (const value of points) normalizeOptions({ ...raw, mode: 'lossy', [by]: value }, { stderrIsTTY: false });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`orchestrator sweep: ${error.message.split('\n')[0]} (see --help)\n`);
    return EXIT.usage;
  }
  const registry: ChildRegistry = new Set();
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => controller.abort(new RunError('E_INTERRUPTED', `interrupted by ${signal}`));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const json = raw.json ?? false;
  try {
    const results = await sweep(by, points, raw, {
      signal: controller.signal,
      observer: silentProgress,
      registry,
      onPoint: (p) => json || process.stderr.write(`sweep: ${by} ${by === 'rate' ? p.rate : p.keys}: ${p.wrong} keys wrong (${p.wrongFraction}), expected ${p.expectedFraction}\n`),
    });
    process.stdout.write(json ? JSON.stringify({ sweep: { by, points: results } }) + '\n' : renderSweep(by, results));
    if (raw.report) {
      writeFileSync(raw.report, renderSweepHtml(by, results));
      process.stderr.write(`orchestrator sweep: HTML report written to ${raw.report}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    process.stderr.write(`orchestrator sweep: ${(controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error)).message}\n`);
    return controller.signal.aborted ? 130 : EXIT.failed;
  } finally {
    await reapAll(registry);
  }
}

/** Reaps every live child: SIGCONT, stop, SIGKILL. Safe to call twice. */
async function reapAll(registry: ChildRegistry): Promise<void> {
  await Promise.all([...registry].map((child) => child.stop()));
}

async function main(): Promise<number> {
  const [command, ...rest] = hideBin(process.argv);
  if (command === 'analyze') return analyze(rest);
  if (command === 'sweep') return runSweep(rest);
  let options: Options;
  try {
    options = normalizeOptions(parseArguments(hideBin(process.argv)), { stderrIsTTY: Boolean(process.stderr.isTTY) });
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`orchestrator: ${error.message.split('\n')[0]} (see --help)\n`);
      return EXIT.usage;
    }
    throw error;
  }

  const registry: ChildRegistry = new Set();
  const controller = new AbortController();
  let interruptedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptedBy) {
      // Second signal: no more patience. SIGKILL works on stopped processes too.
      for (const child of registry) child.kill();
      process.exit(SIGNAL_EXIT[signal] ?? EXIT.failed);
    }
    interruptedBy = signal;
    process.stderr.write(`orchestrator: ${signal}, stopping every process of the run\n`);
    controller.abort(new RunError('E_INTERRUPTED', `interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Our own bugs and a closed stdout (\`orchestrator | head\`) end the run the same orderly way.
  const onFatal = (error: unknown) => {
    if (controller.signal.aborted) return;
    const reason = (error as NodeJS.ErrnoException)?.code === 'EPIPE' ? 'stdout was closed (EPIPE)' : `internal error: ${(error as Error)?.stack ?? String(error)}`;
    controller.abort(new RunError('E_FATAL', reason, { cause: error }));
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  process.stdout.on('error', onFatal);

  const print = (text: string) => process.stdout.write(text);
  // The live view when a person is watching; plain lines when stdout is a file or a pipe, or with --no-tui.
  const onQuit = () => {
    if (interruptedBy) return;
    interruptedBy = 'SIGINT'; // a quit is an interruption: exit 130
    controller.abort(new RunError('E_INTERRUPTED', 'quit from the live view; every process of the run was stopped'));
  };
  const live = !options.json && options.tui && process.stdout.isTTY ? liveView(onQuit) : undefined;
  const observer = options.json ? silentProgress : (live ?? textProgress((line) => print(line + '\n')));
  const reports: string[] = [];
  const config = toJsonConfig(options);
  // The log carries the run's configuration and, per mode, its complete result: `orchestrator analyze` rebuilds the report from it.
  const logger = createLogger('orchestrator', { level: options.logLevel, file: options.logFile, mode: null });
  logger.info({ config }, 'config');
  const runs: JsonRun[] = [];
  try {
    for (const mode of options.modes) {
      const run = toJsonRun(await runMode(mode, options, { signal: controller.signal, observer, registry }));
      runs.push(run);
      logger.info({ run }, 'result');
      if (!options.json) {
        const report = '\n' + renderMode(run, config) + '\n';
        if (live) reports.push(report);
        else print(report);
      }
    }
    live?.close();
    for (const report of reports) print(report);
    printDocument({ config, runs }, options.json);
    const incomplete = runs.some((r) => r.valid === 'unknown' || r.consumers.some((c) => c.endedEarly !== null));
    if (incomplete) process.stderr.write('orchestrator: the run completed, but a consumer ended early or could not be checked (see the report)\n');
    return incomplete ? EXIT.incomplete : EXIT.ok;
  } catch (error) {
    const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
    process.stderr.write(`orchestrator: ${reason.message}\n`);
    return interruptedBy ? (SIGNAL_EXIT[interruptedBy] ?? EXIT.failed) : EXIT.failed;
  } finally {
    live?.close();
    await reapAll(registry);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`orchestrator: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(EXIT.failed);
  },
);
