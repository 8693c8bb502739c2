/**
 * The durable log against what kills or damages it: SIGKILL of a process appending as fast as it
 * can (per fsync policy), a torn last record, a record damaged mid-log, a data file truncated at
 * any byte, and a disk that refuses writes (`ulimit -f`). The processes that die are real
 * (test/fixtures/durable-log-child.mjs); a truncated file is only ever opened in a child, since a
 * miss would kill the process that opened it with SIGBUS.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type Database } from 'lmdb';
import {
  DB_NAMES,
  DurableLog,
  RECORD_HEADER_BYTES,
  type FsyncPolicy,
  type LogRecord,
} from '@state-divergence/broker/internal';
import { bodyFor, KEYS, keyFor } from './fixtures/durable-log-bodies.mjs';

const CHILD = fileURLToPath(new URL('./fixtures/durable-log-child.mjs', import.meta.url));
/** How many acknowledged appends the child must have printed before it is killed. */
const KILL_AFTER = 3_000;

let root: string;
let count = 0;
const newDir = () => join(root, `log-${++count}`);
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sd-durable-crash-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Exit {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs the child to its end; `onLine` sees each stdout line as it arrives and may kill it. */
function runChild(
  args: string[],
  options: { shell?: string; onLine?: (line: string, kill: () => void) => void } = {},
): Promise<Exit> {
  const command = options.shell === undefined ? process.execPath : '/bin/sh';
  const argv =
    options.shell === undefined
      ? [CHILD, ...args]
      : ['-c', `${options.shell} && exec "$0" "$@"`, process.execPath, CHILD, ...args];
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (options.onLine === undefined) return;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) options.onLine(line, () => child.kill('SIGKILL'));
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}

/** The child's single JSON line. */
function json<T>(exit: Exit): T {
  expect({ code: exit.code, signal: exit.signal, stderr: exit.code === 0 ? '' : exit.stderr }).toEqual({
    code: 0,
    signal: null,
    stderr: '',
  });
  return JSON.parse(exit.stdout) as T;
}

/** Every retained record, in pages of 1,000. */
function readAll(log: DurableLog): LogRecord[] {
  const all: LogRecord[] = [];
  for (let page = log.read(0, 1_000); page.length > 0; page = log.read(page.at(-1)!.offset, 1_000)) all.push(...page);
  return all;
}

describe.each(['none', 'periodic', 'on-commit'] as const)('SIGKILL during heavy appends, fsync %s', (fsync) => {
  test('every acknowledged offset is there after reopening, with its body', async () => {
    const dir = newDir();
    let printed = 0;
    const exit = await runChild(['append', dir, fsync], {
      onLine: (_line, kill) => {
        if (++printed === KILL_AFTER) kill();
      },
    });
    expect(exit.signal).toBe('SIGKILL');
    const acknowledged = exit.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
    // Appends resolve in order: the acknowledged offsets are exactly 1..n.
    expect(acknowledged).toEqual(Array.from({ length: acknowledged.length }, (_, i) => i + 1));

    const log = await DurableLog.open({ dir, fsync, retention: null });
    const last = acknowledged.at(-1)!;
    expect(log.recovery.tornTail).toBe(0);
    expect(log.recovery.head).toBeGreaterThanOrEqual(last);
    expect(log.recovery.highestVersion).toBe(log.recovery.head);
    const records = readAll(log);
    expect(records.length).toBe(log.recovery.head);
    const wrong = acknowledged.filter((offset) => !records[offset - 1]!.body.equals(bodyFor(offset)));
    expect(wrong).toEqual([]);
    // The compacted table agrees with the log: each key's last write is its newest record.
    const latest = log.latestWrites();
    expect(latest.map((r) => r.offset)).toEqual(records.slice(-latest.length).map((r) => r.offset));
    await log.close();
  });
});

/** A log of `n` records (offset i carries bodyFor(i)), closed. */
async function makeLog(dir: string, n: number, fsync: FsyncPolicy = 'none'): Promise<void> {
  const log = await DurableLog.open({ dir, fsync, retention: null });
  for (let first = 1; first <= n; first += 5_000) {
    const last = Math.min(n, first + 4_999);
    await Promise.all(
      Array.from({ length: last - first + 1 }, (_, i) => log.append(first + i, keyFor(first + i), bodyFor(first + i))),
    );
  }
  await log.close();
}

/** Opens the log's lmdb environment directly, no checks, to stage damage. */
async function withRawLog(dir: string, act: (log: Database<Buffer, number>) => void): Promise<void> {
  const env = open({ path: dir, noSubdir: false, noSync: true });
  const log = env.openDB<Buffer, number>(DB_NAMES.log, { encoding: 'binary' });
  env.transactionSync(() => act(log));
  await env.close();
}

describe('a torn last record', () => {
  const N = 200;
  const full = RECORD_HEADER_BYTES + bodyFor(N).length;
  // Shorter than the header, exactly the header, one byte of body, one byte short, and one random length.
  const lengths = [
    0,
    RECORD_HEADER_BYTES - 1,
    RECORD_HEADER_BYTES,
    RECORD_HEADER_BYTES + 1,
    full - 1,
    Math.floor(Math.random() * full),
  ];

  test.each(lengths)('a prefix of %i bytes is dropped, counted, and appends continue from it', async (length) => {
    const dir = newDir();
    await makeLog(dir, N, 'on-commit');
    await withRawLog(dir, (raw) => {
      const value = raw.getBinary(N)!;
      expect(value.length).toBe(full);
      raw.putSync(N, value.subarray(0, length));
    });

    const log = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
    expect(log.recovery).toMatchObject({
      records: N - 1,
      tornTail: 1,
      head: N - 1,
      oldest: 1,
      highestVersion: N - 1,
      created: false,
    });
    const records = readAll(log);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: N - 1 }, (_, i) => i + 1));
    expect(records.every((r) => r.body.equals(bodyFor(r.offset)))).toBe(true);
    // The torn record's key is back at its previous write in the compacted table.
    const latest = log.latestWrites();
    expect(latest.find((r) => r.body.readUInt32BE(0) === keyFor(N))?.offset).toBe(N - KEYS);
    expect(latest.every((r) => r.offset <= N - 1)).toBe(true);

    await log.append(N, keyFor(N), bodyFor(N));
    await log.close();
    const again = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
    expect(again.recovery).toMatchObject({ records: N, tornTail: 0, head: N });
    expect(again.read(N - 1, 10).map((r) => r.body)).toEqual([bodyFor(N)]);
    await again.close();
  });
});

describe('damage that is not a tear is refused in one line naming the offset', () => {
  test('a bad record in the middle', async () => {
    const dir = newDir();
    await makeLog(dir, 100);
    await withRawLog(dir, (raw) => {
      const value = Buffer.from(raw.getBinary(40)!);
      value[value.length - 1]! ^= 0xff;
      raw.putSync(40, value);
    });
    await expect(DurableLog.open({ dir, fsync: 'none', retention: null })).rejects.toThrow(
      /^durable log .*: the record at offset 40 is corrupt \(CRC mismatch over its \d+ bytes\) and is not the last one$/,
    );
  });

  test('a missing record in the middle', async () => {
    const dir = newDir();
    await makeLog(dir, 100);
    await withRawLog(dir, (raw) => raw.removeSync(57));
    await expect(DurableLog.open({ dir, fsync: 'none', retention: null })).rejects.toThrow(
      /^durable log .*: offsets 57\.\.57 are missing from the log$/,
    );
  });
});

test('a record removed under a running log (by another process): read() refuses to serve the hole', async () => {
  const dir = newDir();
  await makeLog(dir, 50);
  const log = await DurableLog.open({ dir, fsync: 'none', retention: null });
  expect(log.read(20, 10).map((r) => r.offset)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
  expect(json<{ removed: boolean }>(await runChild(['raw-remove', dir, '25']))).toEqual({ removed: true });
  expect(() => log.read(20, 10)).toThrow(/the record at offset 26 is not offset 25$/);
  expect(() => log.read(40, 20)).not.toThrow();
  await log.close();
});

describe('a data file truncated at a byte', () => {
  const N = 30_000;
  let source: string;
  let size: number;
  beforeAll(async () => {
    source = newDir();
    await makeLog(source, N);
    size = statSync(join(source, 'data.mdb')).size;
  });

  /** A copy of the (closed) log with data.mdb cut to `at` bytes. */
  function truncatedCopy(at: number): string {
    const dir = newDir();
    mkdirSync(dir);
    copyFileSync(join(source, 'data.mdb'), join(dir, 'data.mdb'));
    truncateSync(join(dir, 'data.mdb'), at);
    return dir;
  }

  test('lmdb itself, on such a file, dies of a signal or reads short: why open() checks the file first', async () => {
    const exit = await runChild(['raw-count', truncatedCopy(Math.floor(size / 2))]);
    const died = exit.signal !== null || exit.code !== 0;
    const count = died ? undefined : (JSON.parse(exit.stdout) as { count: number }).count;
    expect(died || count! < N).toBe(true);
  });

  // One child opens every copy in turn (~0.7 s of start-up each, 11 of them, when each had its own): a miss
  // would end it by SIGBUS at that cut, and leave the cuts after it unanswered.
  test('open() refuses it in one line, wherever the cut (in a child process: a miss would be a SIGBUS)', async () => {
    const random = Array.from({ length: 3 }, () => 8_192 + Math.floor(Math.random() * (size - 8_192)));
    const cuts = [0, 100, 4_096, 6_000, 8_192, Math.floor(size / 2), size - 4_096, size - 1, ...random];
    const exit = await runChild(['open', 'none', ...cuts.map(truncatedCopy)]);
    const answers = exit.stdout.split('\n').filter((line) => line !== '');
    const ended = `no answer: the child ended (code ${exit.code}, signal ${exit.signal}): ${exit.stderr}`;
    cuts.forEach((at, i) => {
      const refused = i < answers.length ? (JSON.parse(answers[i]!) as { refused?: string }).refused : ended;
      expect({ at, refused }).toEqual({ at, refused: expect.stringMatching(/truncated|is empty \(0 bytes\)/) });
    });
    expect({ code: exit.code, signal: exit.signal, answers: answers.length }).toEqual({
      code: 0,
      signal: null,
      answers: cuts.length,
    });
  });
});

// The file size limit makes a write fail with EFBIG, or, when lmdb's write of several pages is
// cut short by it, the EIO lmdb reports for a short write: either way a storage error, named.
test('a disk that refuses writes (ulimit -f): the append is rejected, so is every later one, and everything acknowledged survives', async () => {
  const dir = newDir();
  const result = json<{ acknowledged: number; error: string; next: string }>(
    await runChild(['until-full', dir, 'on-commit'], { shell: 'ulimit -f 2000' }),
  );
  expect(result.acknowledged).toBeGreaterThan(100);
  expect(result.error).toMatch(
    new RegExp(
      `^durable log .*: commit of offsets ${result.acknowledged + 1}\\.\\.\\d+ failed: (File too ` +
        `large|Input/output error)`,
    ),
  );
  expect(result.error).not.toContain('see commitError'); // lmdb-js's own message, which names no cause
  expect(result.next).toBe(result.error);

  const log = await DurableLog.open({ dir, fsync: 'on-commit', retention: null });
  expect(log.recovery).toMatchObject({ tornTail: 0, head: result.acknowledged });
  const records = readAll(log);
  expect(records.every((r) => r.body.equals(bodyFor(r.offset, 200)))).toBe(true);
  expect(records).toHaveLength(result.acknowledged);
  await log.close();
});
