/**
 * No import circle anywhere in the packages' sources, type-only imports included: a circle makes
 * two files one unit that neither can be read, tested or moved without the other, and the next
 * one comes cheap once one exists. The graph is every file under packages/<pkg>/src, with its
 * relative imports and its `@state-divergence/<pkg>[/entry]` imports (resolved through that
 * package's exports to the source file they are built from).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, `import type` and `export … from` included. */
const specifiers = (text: string): string[] =>
  [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

/** A built path (`./dist/x/y.js`) or an import's `.js` path back to the source file it comes from. */
function sourceOf(path: string): string | undefined {
  const stem = path.replace(/\.(js|mjs)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, join(stem, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** `@state-divergence/<pkg>` and its sub-entries, mapped to source files through each package.json's exports. */
function packageEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const pkg of readdirSync(packagesDir)) {
    const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const built = typeof target === 'string' ? target : (target as { default?: string } | null)?.default;
      if (built === undefined || subpath.includes('*')) continue;
      const source = sourceOf(join(packagesDir, pkg, built.replace(/^\.\/dist\//, './src/')));
      if (source !== undefined) entries.set(join(manifest.name, subpath), source);
    }
  }
  return entries;
}

function importGraph(): Map<string, string[]> {
  const entries = packageEntries();
  const files = readdirSync(packagesDir).flatMap((pkg) =>
    existsSync(join(packagesDir, pkg, 'src')) ? sources(join(packagesDir, pkg, 'src')) : [],
  );
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(readFileSync(file, 'utf8')).flatMap((s) => {
      const target = s.startsWith('.') ? sourceOf(resolve(dirname(file), s)) : entries.get(s);
      return target === undefined ? [] : [target];
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** One circle per strongly connected component with more than one file (or a file importing itself), as a path. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

test('the import graph of the packages has no circle', () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(150); // the scan found the code it guards
  const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
  expect(edges).toBeGreaterThan(graph.size); // and its imports, across packages too
  const named = circles(graph).map((circle) => circle.map((file) => relative(packagesDir, file)).join(' -> '));
  expect(named).toEqual([]);
});

test('the circle finder finds a circle, a type-only one included', () => {
  const a = '/a.ts';
  const b = '/b.ts';
  const c = '/c.ts';
  expect(
    circles(
      new Map([
        [a, [b]],
        [b, [c]],
        [c, []],
      ]),
    ),
  ).toEqual([]);
  expect(
    circles(
      new Map([
        [a, [b]],
        [b, [c]],
        [c, [a]],
      ]),
    ),
  ).toEqual([[a, b, c, a]]);
  expect(circles(new Map([[a, [a]]]))).toEqual([[a, a]]);
  expect(
    specifiers(
      "import type { X } from './x.js';\nexport { Y } from './y.js';\nimport './z.js';\nconst m = await " +
        "import('./w.js');",
    ),
  ).toEqual(['./x.js', './y.js', './z.js', './w.js']);
});
