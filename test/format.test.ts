/**
 * Every script and source file is as prettier prints it (`npm run format` fixes a failure),
 * and no source line is wider than the configured width. Prettier does not break a string, a
 * template or a comment, so the width is checked on its own; test files are exempt from that
 * second check only, because their long lines are test titles and regular expressions that prettier
 * keeps whole on purpose (the title is what jest prints; a regex split in two is harder to read).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('..', import.meta.url));
const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\0')
  .filter((path) => path !== '');
const ignored = readFileSync(join(root, '.prettierignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const scripts = tracked.filter(
  (path) => /\.(ts|mts|js|mjs|cjs)$/.test(path) && !ignored.some((prefix) => path.startsWith(prefix)),
);

test('the scan found the scripts and sources (a broken scan would pass everything)', () => {
  expect(scripts.length).toBeGreaterThan(300);
  expect(scripts).toContain('packages/orchestrator/src/cli/main.ts');
  expect(scripts).toContain('test/format.test.ts');
});

/** Checks every file in one thread per core (fixtures/prettier-check-worker.mjs), each given every n-th file. */
async function unformattedOf(paths: string[]): Promise<string[]> {
  const threads = Math.min(availableParallelism(), paths.length);
  const shares = Array.from({ length: threads }, (_, i) => paths.filter((_, index) => index % threads === i));
  const answers = shares.map(async (share) => {
    const worker = new Worker(new URL('./fixtures/prettier-check-worker.mjs', import.meta.url), {
      workerData: { root, paths: share },
    });
    const [unformatted] = (await once(worker, 'message')) as [string[]];
    await worker.terminate();
    return unformatted;
  });
  return (await Promise.all(answers)).flat().sort();
}

test('every script and source file is formatted as prettier prints it', async () => {
  expect(await unformattedOf(scripts)).toEqual([]);
});

test('the threaded check sees an unformatted file (a worker that checked nothing would pass everything)', async () => {
  expect(await unformattedOf(['test/fixtures/unformatted/badly-spaced.ts'])).toEqual([
    'test/fixtures/unformatted/badly-spaced.ts',
  ]);
});

test('no source line is wider than the configured width', async () => {
  const options = await prettier.resolveConfig(join(root, 'packages/orchestrator/src/cli/main.ts'));
  const width = options?.printWidth;
  expect(width).toBe(120);
  const wide: string[] = [];
  for (const path of scripts.filter((p) => !p.startsWith('test/'))) {
    readFileSync(join(root, path), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if ([...line].length > width!) wide.push(`${path}:${index + 1} (${[...line].length})`);
      });
  }
  expect(wide).toEqual([]);
});
