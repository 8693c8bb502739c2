import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { exitFlushed } from '@state-divergence/runtime';
import { UsageError } from '../model/errors.js';
import type { RawOptions } from '../model/options.js';
import { analyzeArguments, analyzeCommand } from './analyze-command.js';
import { runArguments } from './arguments.js';
import { normalizeOptions } from './normalize-options.js';
import { runCommand } from './run-command.js';
import { EXIT } from './session.js';
import { OUR_BROKER } from '../model/our-broker.js';
import { givenKnobs, knobArguments } from '../systems-run/knob-flags.js';
import { planSweep, sweepCommand, type SweepArguments } from '../experiments/sweep-command.js';
import { experimentsArguments, experimentsCommand, EXPERIMENTS_SUMMARY } from '../experiments/experiments-command.js';

const environment = () => ({ stderrIsTTY: Boolean(process.stderr.isTTY) });
const DESCRIPTION =
  'Runs the state-divergence demo: a broker, a publisher and N consumers as separate processes over QUIC;\n' +
  ('freezes the stalled consumers with SIGSTOP, resumes them with SIGCONT, and diffs every local copy against ' +
    'the authority.');

const SWEEP_DESCRIPTION =
  "Runs the lossy mode once per value, fresh processes each time, and sets the faulted consumers' wrong keys\n" +
  ("beside the run report's expectation for the offsets they missed. Exits 3, as a run does, when a point could " +
    'not be fully judged.');

/**
 * The CLI: yargs commands, each with its own --help. yargs only parses; every
 * check is normalizeOptions's, and bad input is one line on stderr with exit 2
 * before anything starts. The commands that start processes share one interrupt
 * and teardown path (session.ts).
 */
async function main(argv: string[]): Promise<number> {
  const command = ['sweep', 'analyze', 'experiments'].includes(argv[0] ?? '')
    ? `orchestrator ${argv[0]}`
    : 'orchestrator';
  let exitCode: number = EXIT.ok;
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
            exitCode = await systemEntry(args as RawOptions);
          } else exitCode = await runCommand(normalizeOptions(args as RawOptions, environment()));
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
        async (args) => {
          const { by, runs } = planSweep(args as SweepArguments, environment());
          exitCode = await sweepCommand(by, runs);
        },
      )
      .command('experiments', EXPERIMENTS_SUMMARY, experimentsArguments, async (args) => {
        exitCode = await experimentsCommand(args, environment());
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
          exitCode = analyzeCommand(args);
        },
      )
      .strict()
      .version(false)
      .help()
      // --help exits through exitFlushed below like every other path: yargs' own process.exit would not wait for
      // stdout.
      .exitProcess(false)
      .wrap(Math.min(110, process.stdout.columns || 110))
      .fail((message, error) => {
        // yargs' own complaints (unknown flag, missing value) are bad input; anything else is not ours to relabel.
        if (error === undefined || error === null || error.name === 'YError')
          throw new UsageError(error?.message ?? message);
        throw error;
      })
      .parseAsync();
    return exitCode;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(
      `${command}: ${error.message.split('\n')[0]} (see ` +
        `${command === 'orchestrator' ? '' : command.slice('orchestrator '.length) + ' '}--help)\n`,
    );
    return EXIT.usage;
  }
}

// Every way out waits for stdout and stderr to drain (runtime/src/exit.ts): on a pipe, a --json document is mostly
// still in this process when main resolves.
main(hideBin(process.argv)).then(
  (code) => exitFlushed(code, 'orchestrator'),
  (error: unknown) => {
    process.stderr.write(`orchestrator: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    return exitFlushed(EXIT.failed, 'orchestrator');
  },
);
