import { randomBytes } from 'node:crypto';
import { open, type Database, type DatabaseOptions, type RootDatabase } from 'lmdb';
import type { FsyncPolicy } from '@state-divergence/protocol';
import { envSyncOptions, isFsyncPolicy } from './policy.js';
import { LogRefusal } from './refusal.js';

/** The named databases of the log's lmdb environment (tests reach into them to stage damage). */
export const DB_NAMES = {
  /** offset -> record: the log itself. */
  log: 'log',
  /** key -> record of its last write: the compacted table, written in the append's transaction. */
  latest: 'latest',
  /** what the log is: META_KEYS below. */
  meta: 'meta',
} as const;

export const META_KEYS = {
  /** { format, fsync, epoch }, written once at creation. */
  identity: 'identity',
  /** The highest offset retention has removed (0 if none): the log holds trimmedThrough+1 .. head. */
  trimmedThrough: 'trimmedThrough',
} as const;

/** Bumped if the record layout or the databases change: an older broker must not misread a newer log. */
export const LOG_FORMAT = 1;

interface Identity {
  format: number;
  fsync: FsyncPolicy;
  epoch: number;
}

/** What lmdb-js 3.5.6 does but its typings leave out. */
type OpenDb = (name: string, options: DatabaseOptions & { create?: boolean }) => Database | undefined;
export type SyncableRoot = RootDatabase & { sync(callback: (error?: Error) => void): void };

export interface LogStores {
  env: SyncableRoot;
  log: Database<Buffer, number>;
  latest: Database<Buffer, number>;
  meta: Database<unknown, string>;
}

/** A random integer below 2^53, from the system's CSPRNG: tells two logs (or a log and its re-creation) apart. */
function newEpoch(): number {
  const bytes = randomBytes(8);
  return (bytes.readUInt32BE(0) & 0x1f_ffff) * 0x1_0000_0000 + bytes.readUInt32BE(4);
}

/**
 * Opens (or creates) the environment in a directory prepare-data-dir already checked, and
 * reads or writes the log's identity. A log made with another fsync policy is refused: what
 * an acknowledgment promised when it was written must not change between incarnations.
 */
export async function openStores(
  dir: string,
  fsync: FsyncPolicy,
): Promise<{ stores: LogStores; created: boolean; epoch: number }> {
  let env: SyncableRoot;
  try {
    env = open({ path: dir, noSubdir: false, maxDbs: 4, ...envSyncOptions(fsync) }) as SyncableRoot;
  } catch (error) {
    throw new LogRefusal(dir, `lmdb cannot open it: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    const openDb = env.openDB.bind(env) as unknown as OpenDb;
    let meta = openDb(DB_NAMES.meta, { encoding: 'json', create: false }) as Database<unknown, string> | undefined;
    let identity = meta?.get(META_KEYS.identity) as Identity | undefined;
    const created = identity === undefined;
    if (identity === undefined) {
      // Only an environment with nothing in it (a creation that stopped before its first
      // commit) is made into a log; the identity is its first commit, before any other database.
      if (env.getKeysCount() !== 0)
        throw new LogRefusal(dir, 'holds an lmdb database that is not a durable log (it has no identity record)');
      const fresh: Identity = { format: LOG_FORMAT, fsync, epoch: newEpoch() };
      const made = (meta = env.openDB<unknown, string>(DB_NAMES.meta, { encoding: 'json' }));
      made.transactionSync(() => {
        made.putSync(META_KEYS.identity, fresh);
        made.putSync(META_KEYS.trimmedThrough, 0);
      });
      identity = fresh;
    }
    if (identity.format !== LOG_FORMAT)
      throw new LogRefusal(
        dir,
        `is a durable log of format ${identity.format}; this broker reads format ${LOG_FORMAT}`,
      );
    if (!isFsyncPolicy(identity.fsync))
      throw new LogRefusal(dir, `its identity names an unknown fsync policy ${JSON.stringify(identity.fsync)}`);
    if (identity.fsync !== fsync) {
      throw new LogRefusal(
        dir,
        `was created with fsync policy '${identity.fsync}', not '${fsync}': a log's policy is fixed when it is created`,
      );
    }
    const stores: LogStores = {
      env,
      log: env.openDB<Buffer, number>(DB_NAMES.log, { encoding: 'binary' }),
      latest: env.openDB<Buffer, number>(DB_NAMES.latest, { encoding: 'binary', keyEncoding: 'uint32' }),
      meta: meta!,
    };
    return { stores, created, epoch: identity.epoch };
  } catch (error) {
    await env.close();
    throw error;
  }
}
