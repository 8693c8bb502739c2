import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Mode } from '@state-divergence/protocol';
import { UsageError } from '../model/errors.js';

/**
 * Where a run's log-keeping mode keeps its data: the broker's log in DIR/<mode>/broker and each
 * consumer's checkpoint in DIR/<mode>/consumers/<name>. One directory per run (not per process), so
 * a restarted broker or consumer finds what its predecessor wrote, and an earlier run's data is
 * never mistaken for this run's: a --data-dir that is not empty is refused before anything starts.
 * Its one owner is run/run-mode.ts: the mode opens it at its start and releases it at its teardown.
 */
export interface RunData {
  readonly root: string;
  /**
   * Removes what the run wrote (the directory itself if the run made it), or with --keep-data
   * says on stderr where it is. Once, synchronously: it also runs when the process exits on a
   * second Ctrl-C, where nothing asynchronous runs any more.
   */
  release(): void;
}

const code = (error: unknown): string =>
  (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);

/** Checks a given --data-dir (bad input: one line, exit 2) and makes it if it does not exist; true if it was made. */
function checkGiven(dir: string): boolean {
  let made = false;
  try {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new UsageError(`--data-dir ${dir} is not a directory`);
      const inside = readdirSync(dir);
      if (inside.length > 0) {
        const shown = inside.slice(0, 3).join(', ') + (inside.length > 3 ? `, and ${inside.length - 3} more` : '');
        throw new UsageError(
          `--data-dir ${dir} is not empty (${shown}): an earlier run's data is never reused; give an empty or ` +
            `new directory`,
        );
      }
    } else {
      // Not recursive when the parent exists: Node's recursive mkdir spins for ever under /proc (the review saw it).
      mkdirSync(dir, { recursive: !existsSync(dirname(dir)) });
      made = true;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--data-dir ${dir} cannot be used: ${code(error)}`);
  }
  // Permission bits do not tell (root ignores them; a read-only mount does not show in them): write and see.
  try {
    const probe = join(dir, '.write-probe');
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (error) {
    if (made) rmSync(dir, { recursive: true, force: true });
    throw new UsageError(`--data-dir ${dir} is not writable (${code(error)})`);
  }
  return made;
}

/**
 * The run's data directory: the given --data-dir (checked: UsageError when it cannot be used), or
 * a fresh temporary one. `say` prints the --keep-data line.
 */
export function openRunData(
  options: { dataDir: string | null; keepData: boolean },
  say: (line: string) => void,
): RunData {
  const made = options.dataDir === null ? true : checkGiven(options.dataDir);
  const root = options.dataDir ?? mkdtempSync(join(tmpdir(), 'state-divergence-data-'));
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    if (options.keepData) return say(`data kept in ${root}`);
    const targets = made ? [root] : readdirSync(root).map((name) => join(root, name));
    for (const target of targets) rmSync(target, { recursive: true, force: true, maxRetries: 3 });
  };
  process.on('exit', release);
  return { root, release };
}

/**
 * Refuses a --data-dir the run could not use (UsageError), and leaves it as it found it (only a
 * missing parent it had to make stays): the CLI asks before anything starts, so bad input is one
 * line and exit 2, and the mode that keeps a log opens it for real (run/run-mode.ts).
 */
export function checkDataDir(dir: string): void {
  openRunData({ dataDir: dir, keepData: false }, () => {}).release();
}

/** A mode's directories under the run's data dir: its broker's log's, each of our consumers'. */
export interface ModeDirs {
  broker: string;
  consumer(name: string): string;
}

/** Those directories of a log-keeping mode, made here (a consumer's when it is asked for). */
export function modeData(root: string, mode: Mode): ModeDirs {
  const dir = join(root, mode);
  const broker = join(dir, 'broker');
  mkdirSync(broker, { recursive: true });
  return {
    broker,
    consumer: (name) => {
      const own = join(dir, 'consumers', name);
      mkdirSync(own, { recursive: true });
      return own;
    },
  };
}
