import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  PERIODIC_FSYNC_MS,
  publishBodyVersion,
  type DurableSettings,
  type FsyncPolicy,
} from '@state-divergence/protocol';
import { DATA_FILE, prepareDataDir } from './data-dir.js';
import { GroupCommit } from './group-commit.js';
import { isFsyncPolicy } from './policy.js';
import { decodeRecord, encodeRecord } from './record.js';
import { recover } from './crash-recovery.js';
import { LogRefusal } from './refusal.js';
import { trimToRetention } from './retention.js';
import { openStores, type LogStores } from './stores.js';
import type { LogRecord, LogRecovery, LogStats } from './types.js';

/** What open() takes: the broker's init carries exactly this (BrokerInit.durableLog). retention: keep at most that many
 * newest records (an integer >= 0); null keeps all. */
export type DurableLogOptions = DurableSettings;

interface Append {
  offset: number;
  key: number;
  record: Buffer;
}

/** Directories open in this process: lmdb would hand a second open the same environment, and two logs would write one
 * file. */
const openDirs = new Set<string>();

/**
 * What made a commit fail, in a phrase. lmdb-js rejects every write of a failed commit with
 * "Commit failed (see commitError for details)" and puts the cause (EFBIG, ENOSPC, EIO...) in a
 * promise on the error, `commitError`, already rejected by then; left unhandled, that promise
 * would end the process as an unhandled rejection.
 */
async function commitFailure(error: unknown): Promise<string> {
  const detail = (error as { commitError?: Promise<unknown> } | undefined)?.commitError;
  if (detail === undefined) return error instanceof Error ? error.message : String(error);
  const cause = await Promise.race([
    detail.then(
      () => undefined,
      (reason: unknown) => reason,
    ),
    new Promise((settled) => setImmediate(settled)),
  ]);
  return (cause instanceof Error ? cause.message : (error as Error).message).split('\n')[0]!;
}

const isU32 = (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff;

/**
 * The broker's durable log (--mode durable): every accepted PUBLISH, by offset, in an lmdb
 * environment, with each key's last write beside it in the same transaction. docs/ARCHITECTURE.md,
 * "The durable log", says what each fsync policy promises and why the store is lmdb.
 */
export class DurableLog {
  private committedHead: number;
  private oldestRetained: number;
  /** The offset the next append must carry: past every append accepted, committed or not. */
  private nextOffset: number;
  private readonly group: GroupCommit<Append>;
  private readonly counts = { logBytes: 0, fsyncs: 0, appended: 0 };
  /** periodic: commits since the last fdatasync, and the one running. */
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly dir: string,
    private readonly stores: LogStores,
    private readonly fsync: FsyncPolicy,
    private readonly retention: number | null,
    readonly recovery: LogRecovery,
  ) {
    this.committedHead = recovery.head;
    this.oldestRetained = recovery.oldest;
    this.nextOffset = recovery.head + 1;
    this.group = new GroupCommit((batch) => this.commit(batch));
    if (fsync === 'periodic') this.timer = setInterval(() => void this.syncNow(), PERIODIC_FSYNC_MS).unref();
  }

  /** Creates the log in an empty/nonexistent dir, or recovers the one there. A dir holding anything else, or a log made
   * with another fsync policy, is refused with one line (a LogRefusal, whose message is that line). */
  static async open(options: DurableLogOptions): Promise<DurableLog> {
    const { fsync, retention } = options;
    const dir = resolve(options.dir);
    if (!isFsyncPolicy(fsync))
      throw new LogRefusal(dir, `fsync policy ${JSON.stringify(fsync)} is not one of none, periodic, on-commit`);
    if (retention !== null && !(Number.isSafeInteger(retention) && retention >= 0))
      throw new LogRefusal(
        dir,
        `retention ${String(retention)} is not a whole number of records (or null, to keep all)`,
      );
    if (openDirs.has(dir)) throw new LogRefusal(dir, 'is already open in this process');
    prepareDataDir(dir);
    openDirs.add(dir);
    try {
      const { stores, created, epoch } = await openStores(dir, fsync);
      try {
        const { recovery, wrote } = recover(dir, stores, retention);
        const log = new DurableLog(dir, stores, fsync, retention, { ...recovery, epoch, created });
        // The creation commit and recovery's repair are fdatasync'd too under on-commit (and the
        // databases' creation: lmdb opens a named database in a commit of its own the first time).
        if (fsync === 'on-commit') log.counts.fsyncs += (created ? 4 : 0) + (wrote ? 1 : 0);
        return log;
      } catch (error) {
        await stores.env.close();
        throw error;
      }
    } catch (error) {
      openDirs.delete(dir);
      throw error;
    }
  }

  /**
   * Appends one PUBLISH body at `offset` (the head + 1, counting appends not yet resolved).
   * Resolves, in order, once durable under the policy: on-commit = fdatasync'd; periodic and
   * none = committed (visible to read, survives SIGKILL of the process, not a power cut).
   * Rejects on a storage error, and on every append after one (GroupCommit says why).
   */
  append(offset: number, key: number, body: Uint8Array): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error(`durable log ${this.dir} is closed`));
    if (this.group.failed !== undefined) return Promise.reject(this.group.failed);
    if (offset !== this.nextOffset)
      return Promise.reject(
        new RangeError(`durable log ${this.dir}: append at offset ${offset}, expected ${this.nextOffset}`),
      );
    if (!isU32(key)) return Promise.reject(new RangeError(`durable log ${this.dir}: key ${key} is not a u32`));
    const bodyBuffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.length);
    try {
      publishBodyVersion(bodyBuffer); // recovery reads each body's version: take only PUBLISH bodies
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.nextOffset = offset + 1;
    return this.group.add({ offset, key, record: encodeRecord(offset, key, body) });
  }

  /** One transaction: the records, each key's table entry, and retention's trim. */
  private async commit(batch: Append[]): Promise<void> {
    const { log, latest, env } = this.stores;
    const head = batch[batch.length - 1]!.offset;
    let oldest = this.oldestRetained;
    try {
      await env.transaction(() => {
        for (const { offset, key, record } of batch) {
          log.putSync(offset, record);
          latest.putSync(key, record);
        }
        oldest = trimToRetention(this.stores, this.oldestRetained, head, this.retention);
      });
    } catch (error) {
      throw new Error(
        `durable log ${this.dir}: commit of offsets ${batch[0]!.offset}..${head} failed: ${await commitFailure(error)}`,
      );
    }
    this.committedHead = head;
    this.oldestRetained = oldest;
    this.counts.appended += batch.length;
    for (const { record } of batch) this.counts.logBytes += record.length;
    if (this.fsync === 'on-commit') this.counts.fsyncs += 1;
    else if (this.fsync === 'periodic') this.dirty = true;
  }

  /** periodic: one fdatasync of the data file if anything was committed since the last. */
  private syncNow(): Promise<void> {
    if (this.syncing !== undefined || !this.dirty) return this.syncing ?? Promise.resolve();
    this.dirty = false;
    const syncing = new Promise<void>((done) => {
      this.stores.env.sync((error) => {
        if (error === undefined || error === null) this.counts.fsyncs += 1;
        // A failed fdatasync is the same news as a failed commit: stop taking writes.
        else this.group.stop(new Error(`durable log ${this.dir}: fdatasync failed: ${error.message}`));
        done();
      });
    }).finally(() => {
      this.syncing = undefined;
    });
    this.syncing = syncing;
    return syncing;
  }

  /** The compacted table: each key's last write, in offset order. Retention never removes these. */
  latestWrites(): LogRecord[] {
    const writes: LogRecord[] = [];
    for (const { key, value } of this.stores.latest.getRange({})) {
      const record = this.decode(value, `the compacted table's entry for key ${key}`);
      if (record.offset <= this.committedHead) writes.push(record);
    }
    return writes.sort((a, b) => a.offset - b.offset);
  }

  /**
   * Up to `limit` committed records with offset > afterOffset, in order: what a subscription
   * resuming from an offset reads, one bounded page at a time. Starts at the oldest retained
   * record if afterOffset is older (the caller compares with `oldest` to say what was discarded).
   */
  read(afterOffset: number, limit: number): LogRecord[] {
    if (!Number.isSafeInteger(afterOffset) || !Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`durable log ${this.dir}: read(${afterOffset}, ${limit})`);
    const start = Math.max(afterOffset + 1, this.oldestRetained);
    // Offsets are contiguous, so the page's length is known: anything shorter is a hole.
    const expected = Math.max(0, Math.min(limit, this.committedHead - start + 1));
    if (expected === 0) return [];
    let page = this.page(start, expected);
    if (page.length < expected) {
      // A read snapshot from before the last commit (lmdb-js renews it after each commit): renew, once.
      this.stores.env.resetReadTxn();
      page = this.page(start, expected);
    }
    if (page.length < expected)
      throw new Error(
        `durable log ${this.dir}: ${expected} records from offset ${start} are committed, ${page.length} were found`,
      );
    return page;
  }

  /** `count` records from `start`, none past the head (lmdb makes a commit visible a moment before its promise
   * resolves). */
  private page(start: number, count: number): LogRecord[] {
    const page: LogRecord[] = [];
    for (const { key, value } of this.stores.log.getRange({ start, end: this.committedHead + 1, limit: count })) {
      const record = this.decode(value, `the record at offset ${key}`);
      if (record.offset !== start + page.length)
        throw new Error(`durable log ${this.dir}: the record at offset ${key} is not offset ${start + page.length}`);
      page.push(record);
    }
    return page;
  }

  private decode(value: Buffer, what: string): LogRecord {
    const record = decodeRecord(value);
    if (typeof record === 'string') throw new Error(`durable log ${this.dir}: ${what} is corrupt (${record})`);
    return { offset: record.offset, body: record.body };
  }

  /** The last acknowledged offset. */
  get head(): number {
    return this.committedHead;
  }

  /** The oldest retained offset (head + 1 when the log holds none). */
  get oldest(): number {
    return this.oldestRetained;
  }

  stats(): LogStats {
    return { ...this.counts, dataFileBytes: statSync(join(this.dir, DATA_FILE)).size };
  }

  /** Waits for every append made so far, fdatasyncs under periodic, closes lmdb. Appends after this reject. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.group.drain();
      clearInterval(this.timer);
      if (this.fsync === 'periodic') {
        await this.syncing;
        await this.syncNow();
      }
      await this.stores.env.close();
      openDirs.delete(this.dir);
    })();
    return this.closing;
  }
}
