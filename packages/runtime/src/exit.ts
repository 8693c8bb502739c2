/**
 * The one way a process of this project exits on purpose: once everything it wrote
 * to stdout and stderr has reached the OS. On a pipe, Node writes asynchronously:
 * what does not fit in the pipe at once waits in the process, and `process.exit`
 * throws it away. A 128-consumer `--json | cat` arrived cut at 131,072 of its
 * 638,747 bytes, with exit 0.
 *
 * Flushing never hangs on a reader that is gone: a write to a closed pipe fails
 * (EPIPE), and that failure ends the wait like a completed write. A reader that is
 * alive but does not read holds the exit, as it holds any program writing to it,
 * until a signal (SIGINT, SIGTERM, SIGHUP) ends the wait.
 */

import { constants } from 'node:os';

/** The exit under way: a second call (a late failure, a second signal) joins it. */
let exiting: Promise<never> | undefined;
/** Signals that end a flush at once: asked to stop while waiting on a reader that does not read. */
const IMPATIENT: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Waits until stdout and stderr hold nothing unwritten, then exits with `code`.
 * If stdout could not take what was written (its reader closed it), the output is
 * not whole: a 0 becomes 1, and stderr says so (`name`: the command, as its other lines start). Never resolves.
 */
export function exitFlushed(code: number, name: string): Promise<never> {
  exiting ??= flushThenExit(code, name);
  return exiting;
}

async function flushThenExit(code: number, name: string): Promise<never> {
  // 128 + n, as a shell reports a process killed by signal n.
  for (const signal of IMPATIENT) process.on(signal, () => process.exit(128 + constants.signals[signal]));
  const stdoutLost = await flushed(process.stdout);
  let exitCode = code;
  if (stdoutLost !== undefined && code === 0) {
    exitCode = 1;
    process.stderr.write(`${name}: stdout was closed before all of it was read (${stdoutLost}); exit 1\n`);
  }
  await flushed(process.stderr);
  process.exit(exitCode);
}

/**
 * Resolves once every write made to `stream` so far has completed or failed: an empty
 * write's callback runs only after the writes queued before it. Returns the failure's
 * code (EPIPE) if the stream could not take them, undefined when it did.
 */
function flushed(stream: NodeJS.WriteStream): Promise<string | undefined> {
  // A file or a terminal is written synchronously: nothing is ever left behind.
  if (stream.writableLength === 0 && !stream.writableNeedDrain) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    // The failure is also emitted as 'error': with no listener it would crash the exit it ends.
    const ignore = () => {};
    stream.on('error', ignore);
    try {
      stream.write('', (error) =>
        resolve(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : undefined),
      );
    } catch (error) {
      resolve((error as Error).message);
    }
  });
}
