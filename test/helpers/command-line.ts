import { readCommandLine } from '@state-divergence/orchestrator/internal';

/**
 * The orchestrator's answer to `args` when it starts nothing (bad input, --help), read in-process
 * from the code the bin runs first (cli/command-line.ts), not from a copy: ~0.3 s of CPU less than
 * a process per case. A command line that would start a run fails the test instead: nothing here
 * is ever started. `env` is added to this process's, as a child's would be.
 */
export async function answerTo(args: string[], env: Record<string, string> = {}) {
  const line = await readCommandLine(args, { env: { ...process.env, ...env }, stderrIsTTY: false, columns: undefined });
  if ('start' in line) throw new Error(`orchestrator ${args.join(' ')} was not refused: it would start`);
  return line;
}
