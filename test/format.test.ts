/**
 * Every script and source file is as prettier prints it (`npm run format` fixes a failure),
 * and no source line is wider than the configured width. Prettier does not break a string, a
 * template or a comment, so the width is checked on its own; test files are exempt from that
 * second check only, because their long lines are test titles and regular expressions that prettier
 * keeps whole on purpose (the title is what jest prints; a regex split in two is harder to read).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

test('every script and source file is formatted as prettier prints it', async () => {
  const unformatted: string[] = [];
  for (const path of scripts) {
    const file = join(root, path);
    const options = await prettier.resolveConfig(file);
    if (!(await prettier.check(readFileSync(file, 'utf8'), { ...options, filepath: file }))) unformatted.push(path);
  }
  expect(unformatted).toEqual([]);
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
