/**
 * The broker's durable log on a real lmdb environment in a temporary directory: appends and
 * group commit, pages, the compacted table, retention, reopening, and what open() refuses.
 * (Crashes, tears, truncation and a full disk: durable-log-crash.test.ts.)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DurableLog,
  LogRefusal,
  PERIODIC_FSYNC_MS,
  type FsyncPolicy,
  type LogRecord,
} from '@state-divergence/broker/internal';
import { bodyFor, KEYS, keyFor } from './fixtures/durable-log-bodies.mjs';

let root: string;
let count = 0;
/** A fresh directory path (not created: open() makes it). */
const newDir = () => join(root, `log-${++count}`);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sd-durable-log-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Appends offsets head+1 .. head+n in one synchronous stretch (one group commit), and waits for them. */
async function appendMany(log: DurableLog, n: number, payloadLength = 40): Promise<void> {
  const first = log.head + 1;
  await Promise.all(
    Array.from({ length: n }, (_, i) => log.append(first + i, keyFor(first + i), bodyFor(first + i, payloadLength))),
  );
}

const offsets = (records: LogRecord[]) => records.map((r) => r.offset);

/** Every retained record, read in pages of `page`. */
function readAll(log: DurableLog, page = 7): LogRecord[] {
  const all: LogRecord[] = [];
  for (let after = 0; ;) {
    const records = log.read(after, page);
    if (records.length === 0) return all;
    expect(records.length).toBeLessThanOrEqual(page);
    all.push(...records);
    after = records.at(-1)!.offset;
  }
}

test('appends resolve in order; pages read them back, bodies byte for byte, each page bounded', async () => {
  const log = await DurableLog.open({ dir: newDir(), fsync: 'on-commit', retention: null });
  expect(log.recovery).toMatchObject({ records: 0, tornTail: 0, head: 0, oldest: 1, highestVersion: 0, created: true });
  expect(Number.isSafeInteger(log.recovery.epoch) && log.recovery.epoch >= 0).toBe(true);
  const resolved: number[] = [];
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      log.append(i + 1, keyFor(i + 1), bodyFor(i + 1)).then(() => resolved.push(i + 1)),
    ),
  );
  expect(resolved).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect([log.head, log.oldest]).toEqual([20, 1]);

  expect(offsets(log.read(0, 8))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect(offsets(log.read(8, 8))).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
  expect(offsets(log.read(16, 8))).toEqual([17, 18, 19, 20]);
  expect(log.read(20, 8)).toEqual([]);
  expect(log.read(3, 0)).toEqual([]);
  // Read after the pages above: a page's buffers are its own, not a view lmdb reuses.
  const all = readAll(log);
  expect(all.map((r) => r.body)).toEqual(Array.from({ length: 20 }, (_, i) => bodyFor(i + 1)));
  const stats = log.stats();
  expect(stats.appended).toBe(20);
  expect(stats.logBytes).toBe(20 * (16 + bodyFor(1).length));
  expect(stats.dataFileBytes).toBeGreaterThan(stats.logBytes);
  await log.close();
});

test('group commit: appends made in one synchronous stretch are one transaction (one fdatasync under on-commit)', async () => {
  const log = await DurableLog.open({ dir: newDir(), fsync: 'on-commit', retention: null });
  const before = log.stats().fsyncs;
  await appendMany(log, 500);
  expect(log.stats().fsyncs - before).toBe(1);
  // One at a time, each awaited: a transaction (and an fdatasync) each.
  for (let i = 0; i < 3; i++) await log.append(log.head + 1, 0, bodyFor(log.head + 1));
  expect(log.stats().fsyncs - before).toBe(4);
  expect(log.head).toBe(503);
  await log.close();
});

test('none and periodic fdatasync nothing per commit; periodic does on its timer and at close', async () => {
  for (const fsync of ['none', 'periodic'] as const) {
    const log = await DurableLog.open({ dir: newDir(), fsync, retention: null });
    await appendMany(log, 100);
    expect(log.stats().fsyncs).toBe(0);
    await log.close();
    expect(log.stats().fsyncs).toBe(fsync === 'periodic' ? 1 : 0);
  }
});

test('periodic fdatasyncs on its timer once there are new commits, and not again until there are more', async () => {
  const log = await DurableLog.open({ dir: newDir(), fsync: 'periodic', retention: null });
  await appendMany(log, 10);
  const deadline = Date.now() + 10_000;
  while (log.stats().fsyncs === 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, PERIODIC_FSYNC_MS / 4));
  expect(log.stats().fsyncs).toBe(1);
  // However slow the machine, idle ticks have nothing to flush: still one.
  await new Promise((r) => setTimeout(r, PERIODIC_FSYNC_MS * 3));
  expect(log.stats().fsyncs).toBe(1);
  await log.close(); // nothing new since: no fdatasync at close either
  expect(log.stats().fsyncs).toBe(1);
});

test("latestWrites: each key's last write, in offset order", async () => {
  const log = await DurableLog.open({ dir: newDir(), fsync: 'none', retention: null });
  await appendMany(log, KEYS + 10); // keys 0..9 written twice
  const latest = log.latestWrites();
  expect(latest).toHaveLength(KEYS);
  expect(offsets(latest)).toEqual(Array.from({ length: KEYS }, (_, i) => i + 11));
  expect(latest.map((r) => r.body)).toEqual(Array.from({ length: KEYS }, (_, i) => bodyFor(i + 11)));
  await log.close();
});

test('retention keeps the newest records, trimming in the commit; the compacted table keeps every key', async () => {
  const dir = newDir();
  const log = await DurableLog.open({ dir, fsync: 'on-commit', retention: 10 });
  const before = log.stats().fsyncs;
  await appendMany(log, 25);
  expect(log.stats().fsyncs - before).toBe(1); // the trim rode in the append's transaction
  expect([log.head, log.oldest]).toEqual([25, 16]);
  expect(offsets(readAll(log))).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
  // A page asked for from before the oldest starts at the oldest (the caller compares with `oldest`).
  expect(offsets(log.read(3, 2))).toEqual([16, 17]);
  expect(offsets(log.latestWrites())).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  for (let i = 0; i < 3; i++) await log.append(log.head + 1, keyFor(log.head + 1), bodyFor(log.head + 1));
  expect([log.head, log.oldest]).toEqual([28, 19]);
  await log.close();

  // A smaller retention at the next open trims at once; a larger one keeps what is there.
  const smaller = await DurableLog.open({ dir, fsync: 'on-commit', retention: 4 });
  expect(smaller.recovery).toMatchObject({ records: 4, head: 28, oldest: 25, created: false });
  expect(offsets(readAll(smaller))).toEqual([25, 26, 27, 28]);
  await smaller.close();
  const all = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
  expect(all.recovery).toMatchObject({ records: 4, head: 28, oldest: 25 });
  await all.close();
});

test("retention 0 keeps no record but the head, the oldest and every key's last write", async () => {
  const dir = newDir();
  const log = await DurableLog.open({ dir, fsync: 'none', retention: 0 });
  await appendMany(log, 5);
  expect([log.head, log.oldest]).toEqual([5, 6]);
  expect(log.read(0, 10)).toEqual([]);
  expect(offsets(log.latestWrites())).toEqual([1, 2, 3, 4, 5]);
  await log.close();
  const again = await DurableLog.open({ dir, fsync: 'none', retention: 0 });
  expect(again.recovery).toMatchObject({ records: 0, head: 5, oldest: 6, highestVersion: 5 });
  await again.append(6, keyFor(6), bodyFor(6));
  expect([again.head, again.oldest]).toEqual([6, 7]);
  await again.close();
});

test('reopening continues the offsets and keeps the epoch; an append out of sequence is rejected', async () => {
  const dir = newDir();
  const first = await DurableLog.open({ dir, fsync: 'periodic', retention: null });
  await appendMany(first, 30);
  const epoch = first.recovery.epoch;
  await first.close();
  await expect(first.append(31, 0, bodyFor(31))).rejects.toThrow(/is closed/);

  const second = await DurableLog.open({ dir, fsync: 'periodic', retention: null });
  expect(second.recovery).toEqual({
    records: 30,
    tornTail: 0,
    head: 30,
    oldest: 1,
    epoch,
    highestVersion: 30,
    created: false,
  });
  await expect(second.append(30, 0, bodyFor(30))).rejects.toThrow('append at offset 30, expected 31');
  await expect(second.append(31, 0, Buffer.alloc(3))).rejects.toThrow(/publish frame body is 3 bytes/);
  await second.append(31, keyFor(31), bodyFor(31));
  expect(offsets(second.read(28, 10))).toEqual([29, 30, 31]);
  await second.close();

  // Another log, another epoch.
  const other = await DurableLog.open({ dir: newDir(), fsync: 'periodic', retention: null });
  expect(other.recovery.epoch).not.toBe(epoch);
  await other.close();
});

/** open()'s refusal: a LogRefusal whose message is one line naming the directory. */
async function refusal(options: { dir: string; fsync: FsyncPolicy; retention: number | null }): Promise<string> {
  const error: unknown = await DurableLog.open(options).then(
    (log) => log.close().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LogRefusal);
  const message = (error as Error).message;
  expect(message).not.toContain('\n');
  expect(message).toContain(options.dir);
  return message;
}

test('a directory holding anything but a durable log is refused, and left as it was', async () => {
  const withFile = newDir();
  mkdirSync(withFile);
  writeFileSync(join(withFile, 'notes.txt'), 'mine');
  expect(await refusal({ dir: withFile, fsync: 'none', retention: null })).toMatch(
    /holds files that are not a durable log's \(notes\.txt\)/,
  );
  expect(readdirSync(withFile)).toEqual(['notes.txt']);

  const notLmdb = newDir();
  mkdirSync(notLmdb);
  writeFileSync(join(notLmdb, 'data.mdb'), Buffer.alloc(64 * 1024, 7));
  expect(await refusal({ dir: notLmdb, fsync: 'none', retention: null })).toMatch(
    /does not start with an lmdb meta page/,
  );

  const file = join(withFile, 'notes.txt');
  expect(await refusal({ dir: file, fsync: 'none', retention: null })).toMatch(/is not a directory/);
});

test('a log made with one fsync policy is refused under another', async () => {
  const dir = newDir();
  const log = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
  await appendMany(log, 3);
  await log.close();
  for (const fsync of ['none', 'periodic'] as const) {
    expect(await refusal({ dir, fsync, retention: null })).toMatch(
      `was created with fsync policy 'on-commit', not '${fsync}'`,
    );
  }
  const again = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
  expect(again.recovery.head).toBe(3);
  await again.close();
});

test('bad options and a second open of the same directory are refused', async () => {
  const dir = newDir();
  expect(await refusal({ dir, fsync: 'always' as FsyncPolicy, retention: null })).toMatch(
    /fsync policy "always" is not one of/,
  );
  expect(await refusal({ dir, fsync: 'none', retention: -1 })).toMatch(/retention -1 is not a whole number/);
  const log = await DurableLog.open({ dir, fsync: 'none', retention: null });
  expect(await refusal({ dir, fsync: 'none', retention: null })).toMatch(/already open in this process/);
  await log.close();
});
