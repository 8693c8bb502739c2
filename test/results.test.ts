import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const SCRIPT = fileURLToPath(new URL('../scripts/results.mjs', import.meta.url));
const RESULTS = fileURLToPath(new URL('../docs/RESULTS.md', import.meta.url));
const check = (...args: string[]) =>
  execa('node', [SCRIPT, '--check', ...args], { reject: false, env: { NODE_OPTIONS: '' } });

describe('docs/RESULTS.md is generated from the stored JSON, never edited by hand', () => {
  test('the committed page is exactly what npm run results draws from bench/results.json, bench/experiments.json and bench/soak.json', async () => {
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test.each([
    [
      'a figure edited by hand',
      (page: string) => page.replace('| (4) overheadSeconds', '| (4) overheadSeconds (hand-edited)'),
    ],
    ['a line added by hand', (page: string) => page + 'One more sentence.\n'],
  ])('%s fails the check with one line saying what to run', async (_case, edit) => {
    const page = readFileSync(RESULTS, 'utf8');
    const copy = join(mkdtempSync(join(tmpdir(), 'state-divergence-results-')), 'RESULTS.md');
    copyFileSync(RESULTS, copy);
    writeFileSync(copy, edit(page));
    expect(readFileSync(copy, 'utf8')).not.toBe(page);
    const result = await check('--file', copy);
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^results: .*RESULTS\.md is not what bench\/results\.json, bench\/experiments\.json and bench\/soak\.json give; run npm run results/,
    );
  });
});
