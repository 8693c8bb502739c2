import yargs from 'yargs';
import { UsageError } from '../model/errors.js';
import type { RawOptions } from '../model/options.js';
import { analyzeArguments, printAnalysis } from './analyze-command.js';
import { analyzeLog } from './analyze-log.js';
import { runArguments } from './arguments.js';
import { normalizeOptions } from './normalize-options.js';
import { runCommand } from './run-command.js';
import { EXIT } from './session.js';
import { checkDataDir } from '../run/data-dir.js';
import { OUR_BROKER } from '../model/our-broker.js';
import { givenKnobs, knobArguments } from '../systems-run/knob-flags.js';
import { planSweep, sweepCommand, type SweepArguments } from '../experiments/sweep-command.js';
import { experimentsArguments, experimentsCommand, EXPERIMENTS_SUMMARY } from '../experiments/experiments-command.js';

const DESCRIPTION =
  'Runs the state-divergence demo: a broker, a publisher and N consumers as separate processes over QUIC;\n' +
  ('freezes the stalled consumers with SIGSTOP, resumes them with SIGCONT, and diffs every local copy against ' +
    'the authority.');

const SWEEP_DESCRIPTION =
  "Runs the lossy mode once per value, fresh processes each time, and sets the faulted consumers' wrong keys\n" +
  ("beside the run report's expectation for the offsets they missed. Exits 3, as a run does, when a point could " +
    'not be fully judged.');

/** What the command line is read against: the process's environment (as tests pass their own). */
export interface Invocation {
  /** `--credentials`' SD_* variables, and PATH for a server's binary (`--system NAME`). */
  env: NodeJS.ProcessEnv;
  stderrIsTTY: boolean;
  /** The terminal's width, for --help; undefined when stdout is not one. */
  columns: number | undefined;
}

/** The command line, checked: a command to start, or already answered (--help, or bad input). */
export type CommandLine =
  | { command: string; start: () => Promise<number> }
  | { command: string; exitCode: number; stdout: string; stderr: string };

/** `orchestrator` or `orchestrator sweep`: the name a refusal starts with. */
const commandOf = (argv: string[]) =>
  ['sweep', 'analyze', 'experiments'].includes(argv[0] ?? '') ? `orchestrator ${argv[0]}` : 'orchestrator';

/** Bad input as the CLI prints it: the message's first line and where to read on, ending in a newline. */
export function refusalLine(command: string, error: UsageError): string {
  const help = `${command === 'orchestrator' ? '' : command.slice('orchestrator '.length) + ' '}--help`;
  return `${command}: ${error.message.split('\n')[0]} (see ${help})\n`;
}

/**
 * The CLI's yargs commands, each with its own --help. yargs only parses; every check runs here,
 * before anything starts, and what passes them comes back as a command to start: the bin starts
 * it (main.ts), and a test reads a refusal in-process from the same code. A check that needs a
 * started process (a server's reachability) is the command's, after it starts.
 */
export async function readCommandLine(argv: string[], invocation: Invocation): Promise<CommandLine> {
  const command = commandOf(argv);
  const environment = { stderrIsTTY: invocation.stderrIsTTY };
  let start: (() => Promise<number>) | undefined;
  let help = '';
  try {
    await yargs(argv)
      .scriptName('orchestrator')
      .command(
        ['$0', 'run'],
        'Run the demo (the default command)',
        (y) => knobArguments(runArguments(y.usage(`$0 [run] [options]\n\n${DESCRIPTION}`))),
        async (args) => {
          // A real system's run lives in systems-run/, loaded only then (its clients are not small).
          // A flag only a real system takes comes this way too, to be refused without --system NAME.
          const systemOnly =
            [args.idiom, args.endpoint, args.credentials, args.compactAt, args.reset].some(
              (flag) => flag !== undefined,
            ) || Object.keys(givenKnobs(args)).length > 0;
          if ((args.system ?? OUR_BROKER) !== OUR_BROKER || systemOnly) {
            const { systemEntry } = await import('../systems-run/system-entry.js');
            start = systemEntry(args as RawOptions, invocation.env);
            return;
          }
          const options = normalizeOptions(args as RawOptions, environment);
          // A --data-dir it cannot use is bad input too. The mode that keeps a log opens it and releases it
          // (run/run-mode.ts); normalizeOptions refused the flag for modes that keep none.
          if (options.dataDir !== null) checkDataDir(options.dataDir);
          start = () => runCommand(options);
        },
      )
      .command(
        'sweep',
        "Lossy at each value of --rate or --keys: the faulted consumers' damage against the expectation",
        (y) =>
          runArguments(
            y.usage(`$0 sweep --rate 100,400,1600 [options]   (or --keys 200,2000,20000)\n\n${SWEEP_DESCRIPTION}`),
            true,
          ),
        (args) => {
          const { by, runs } = planSweep(args as SweepArguments, environment);
          start = () => sweepCommand(by, runs);
        },
      )
      .command('experiments', EXPERIMENTS_SUMMARY, experimentsArguments, (args) => {
        // Its checks (--only, the designs) run as it starts, before its first run does.
        start = () => experimentsCommand(args, environment);
      })
      .command(
        'analyze <log>',
        "Rebuild a run's report from its NDJSON log (--log-file): the same text, or with --json the same document",
        (y) =>
          analyzeArguments(
            y.positional('log', {
              type: 'string',
              demandOption: true,
              describe: 'The log file a run wrote with --log-file',
            }),
          ),
        (args) => {
          const document = analyzeLog(args.log);
          start = async () => printAnalysis(document, args);
        },
      )
      .strict()
      .version(false)
      .help()
      .exitProcess(false)
      .wrap(Math.min(110, invocation.columns || 110))
      .fail((message, error) => {
        // yargs' own complaints (unknown flag, missing value) are bad input; anything else is not ours to relabel.
        if (error === undefined || error === null || error.name === 'YError')
          throw new UsageError(error?.message ?? message);
        throw error;
      })
      // With a callback yargs hands --help's text back instead of printing it: the bin prints it (main.ts).
      .parseAsync(argv, {}, (_error, _args, output) => {
        help = output;
      });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { command, exitCode: EXIT.usage, stdout: '', stderr: refusalLine(command, error) };
  }
  if (start === undefined) return { command, exitCode: EXIT.ok, stdout: help === '' ? '' : help + '\n', stderr: '' };
  return { command, start };
}
