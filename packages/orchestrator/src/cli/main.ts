import { hideBin } from 'yargs/helpers';
import { exitFlushed } from '@state-divergence/runtime';
import { UsageError } from '../model/errors.js';
import { readCommandLine, refusalLine } from './command-line.js';
import { EXIT } from './session.js';

/**
 * The CLI's process: the command line is read and checked (command-line.ts), and bad input is one
 * line on stderr with exit 2 before anything starts. The commands that start processes share one
 * interrupt and teardown path (session.ts); a refusal only a started command can make (a --system
 * run's own checks) is printed the same way.
 */
async function main(argv: string[]): Promise<number> {
  const line = await readCommandLine(argv, {
    env: process.env,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns,
  });
  if (!('start' in line)) {
    process.stdout.write(line.stdout);
    process.stderr.write(line.stderr);
    return line.exitCode;
  }
  try {
    return await line.start();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(refusalLine(line.command, error));
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
