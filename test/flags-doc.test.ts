/**
 * docs/FLAGS.md is the CLI's own declarations, rendered: a flag added, removed or re-described
 * without `npm run flags` fails here, naming the first line that differs.
 */
import { readFileSync } from 'node:fs';
import { renderFlagReference } from '@state-divergence/orchestrator';

const committed = readFileSync(new URL('../docs/FLAGS.md', import.meta.url), 'utf8');
const generated = renderFlagReference();

test('docs/FLAGS.md is what `npm run flags` writes now', () => {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const first = a.findIndex((line, i) => line !== b[i]);
  expect({
    firstDifferentLine: first === -1 && a.length === b.length ? null : first + 1,
    committed: a[first] ?? null,
    generated: b[first] ?? null,
  }).toEqual({
    firstDifferentLine: null,
    committed: null,
    generated: null,
  });
});

test('it lists every flag of each command, each once, with its description', () => {
  for (const flag of [
    '--rate',
    '--mode',
    '--stall',
    '--crash',
    '--partition',
    '--json',
    '--log-file',
    '--only',
    '--restart-modes',
  ]) {
    expect([flag, generated.includes(`| \`${flag}\` |`)]).toEqual([flag, true]);
  }
  const runRows = generated
    .split('## `orchestrator sweep`')[0]!
    .split('\n')
    .filter((l) => l.startsWith('| `--'));
  expect(runRows.length).toBeGreaterThan(30);
  expect(new Set(runRows.map((l) => l.split('|')[1])).size).toBe(runRows.length);
  expect(runRows.every((l) => l.split(' | ').at(-1)!.trim().length > 3)).toBe(true);
});
