/**
 * The import rule of docs/ARCHITECTURE.md, checked rather than hoped for: tests reach packages only
 * through their exports (never `packages/<pkg>/src/...` by path), and a package's `./internal`
 * export is imported by tests alone, never by another package, the bench or an example.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts/.js/.mjs source file under `dir`, skipping dependencies and build output. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist'].includes(entry.name) ? [] : sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** `from '…'` and `import('…')` specifiers of a file. */
const specifiers = (file: string): string[] => [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

test('no test imports a package source file by path', () => {
  const offenders = sources(join(root, 'test')).flatMap((file) => specifiers(file).filter((s) => /packages\/[^/]+\/src\//.test(s)).map((s) => `${relative(root, file)}: ${s}`));
  expect(offenders).toEqual([]);
});

test('nothing but tests imports a package\'s ./internal export', () => {
  const outside = ['packages', 'bench', 'examples', 'scripts'].flatMap((dir) => sources(join(root, dir)));
  expect(outside.length).toBeGreaterThan(50); // the scan found the code it guards
  const offenders = outside.flatMap((file) => specifiers(file).filter((s) => /^@state-divergence\/[^/]+\/internal$/.test(s)).map((s) => `${relative(root, file)}: ${s}`));
  expect(offenders).toEqual([]);
});
