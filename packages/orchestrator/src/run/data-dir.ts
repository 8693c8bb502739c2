import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Mode } from '@state-divergence/protocol';
import { UsageError } from '../model/errors.js';

/**
 * Where a run's durable modes keep their data: the broker's log in DIR/<mode>/broker and each
 * consumer's checkpoint in DIR/<mode>/consumers/<name>. One directory per run (not per process), so
 * a restarted broker or consumer finds what its predecessor wrote, and an earlier run's data is
 * never mistaken for this run's: a --data-dir that is not empty is refused before anything starts.
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

const code = (error: unknown): string => (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);

/** Checks a given --data-dir (bad input: one line, exit 2) and makes it if it does not exist; true if it was made. */
function checkGiven(dir: string): boolean {
  let made = false;
  try {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new UsageError(`--data-dir ${dir} is not a directory`);
      const inside = readdirSync(dir);
      if (inside.length > 0) {
        const shown = inside.slice(0, 3).join(', ') + (inside.length > 3 ? `, and ${inside.length - 3} more` : '');
        throw new UsageError(`--data-dir ${dir} is not empty (${shown}): an earlier run's data is never reused; give an empty or new directory`);
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
export function openRunData(options: { dataDir: string | null; keepData: boolean }, say: (line: string) => void): RunData {
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

/** A durable mode's directories under the run's data dir, made here: the broker's, and each consumer's (made when asked for). */
export function modeData(root: string, mode: Mode): { broker: string; consumer(name: string): string } {
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
