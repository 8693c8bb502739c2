import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dataFileProblem } from './data-file.js';
import { LogRefusal } from './refusal.js';

/** What lmdb keeps in the log's directory: nothing else may be there. */
export const DATA_FILE = 'data.mdb';
export const LOCK_FILE = 'lock.mdb';

/**
 * Checks the directory before lmdb opens it: it is absent (made here), empty, or holds lmdb's
 * two files and nothing else, with a data file that is not truncated. Anything else is refused,
 * so that a wrong path (a home directory, another program's data) is never written into.
 * Returns whether a data file exists (a log to recover, or a creation that stopped early).
 */
export function prepareDataDir(dir: string): { dataFileExists: boolean } {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    return { dataFileExists: false };
  }
  if (!statSync(dir).isDirectory()) throw new LogRefusal(dir, 'is not a directory');
  const others = readdirSync(dir).filter((name) => name !== DATA_FILE && name !== LOCK_FILE);
  if (others.length > 0) {
    const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, and ${others.length - 3} more` : '');
    throw new LogRefusal(dir, `holds files that are not a durable log's (${shown}); give an empty or new directory`);
  }
  const dataFile = join(dir, DATA_FILE);
  if (!existsSync(dataFile)) return { dataFileExists: false };
  const problem = dataFileProblem(dataFile);
  if (problem !== undefined) throw new LogRefusal(dir, problem);
  return { dataFileExists: true };
}
