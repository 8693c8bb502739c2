/**
 * A run's data dir (run/data-dir.ts) on the real file system: checked before anything starts,
 * and removed at the end unless --keep-data (what the run wrote, never what was there before).
 * A directory it cannot write into is test/cli.test.ts's (as another user: root writes through
 * permission bits).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDataDir, openRunData, UsageError } from '@state-divergence/orchestrator';

const scratch = () => mkdtempSync(join(tmpdir(), 'data-dir-test-'));
const refusal = (dataDir: string): string => {
  try {
    openRunData({ dataDir, keepData: false }, () => {}).release();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

test('without --data-dir: a fresh temporary directory, removed by release (once)', () => {
  const data = openRunData({ dataDir: null, keepData: false }, () => {});
  mkdirSync(join(data.root, 'durable', 'broker'), { recursive: true });
  writeFileSync(join(data.root, 'durable', 'broker', 'data.mdb'), 'x');
  data.release();
  expect(existsSync(data.root)).toBe(false);
  expect(() => data.release()).not.toThrow();
});

test('a given directory: made if absent; at the end only what the run wrote goes, an empty directory it was given stays', () => {
  const given = scratch();
  const data = openRunData({ dataDir: given, keepData: false }, () => {});
  mkdirSync(join(given, 'durable', 'consumers', 'consumer-1'), { recursive: true });
  data.release();
  expect(existsSync(given)).toBe(true);
  expect(readdirSync(given)).toEqual([]);
  const absent = join(scratch(), 'a', 'b');
  const made = openRunData({ dataDir: absent, keepData: false }, () => {});
  expect(readdirSync(absent)).toEqual([]); // the write probe left nothing
  made.release();
  expect(existsSync(absent)).toBe(false);
});

test("the CLI's check before anything starts leaves a usable directory as it found it, and refuses as opening does", () => {
  const given = scratch();
  checkDataDir(given);
  expect(readdirSync(given)).toEqual([]);
  const absent = join(scratch(), 'new');
  checkDataDir(absent);
  expect(existsSync(absent)).toBe(false); // the mode that keeps a log makes it (run/run-mode.ts)
  const earlier = scratch();
  mkdirSync(join(earlier, 'durable'));
  expect(() => checkDataDir(earlier)).toThrow(UsageError);
  expect(readdirSync(earlier)).toEqual(['durable']);
});

test('--keep-data: nothing is removed, and one line says where it is', () => {
  const lines: string[] = [];
  const data = openRunData({ dataDir: null, keepData: true }, (line) => lines.push(line));
  writeFileSync(join(data.root, 'kept'), 'x');
  data.release();
  expect(lines).toEqual([`data kept in ${data.root}`]);
  expect(readdirSync(data.root)).toEqual(['kept']);
  rmSync(data.root, { recursive: true }); // kept by the code under test; the test leaves nothing behind
});

test('refused, one line each: not empty (an earlier run), not a directory, cannot be made', () => {
  const earlier = scratch();
  mkdirSync(join(earlier, 'durable'));
  expect(refusal(earlier)).toBe(
    `--data-dir ${earlier} is not empty (durable): an earlier run's data is never reused; give an empty or new ` +
      `directory`,
  );
  const file = join(scratch(), 'file');
  writeFileSync(file, 'x');
  expect(refusal(file)).toBe(`--data-dir ${file} is not a directory`);
  expect(refusal(join(file, 'below'))).toBe(`--data-dir ${join(file, 'below')} cannot be used: ENOTDIR`);
});

test('a process that exits without unwinding (a second Ctrl-C calls process.exit) still removes it', () => {
  // The orchestrator's own package, in a process of its own that writes into the dir and exits at once.
  const script = [
    "const { openRunData } = await import('@state-divergence/orchestrator');",
    "const { writeFileSync } = await import('node:fs');",
    'const data = openRunData({ dataDir: null, keepData: false }, () => {});',
    "writeFileSync(data.root + '/data.mdb', 'x');",
    'process.stdout.write(data.root);',
    'process.exit(130);',
  ].join('\n');
  const child = spawnSync('node', ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  expect(child.status).toBe(130);
  expect(child.stdout).toMatch(/state-divergence-data-/);
  expect(existsSync(child.stdout)).toBe(false);
});
