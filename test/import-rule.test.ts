/**
 * The import rule of docs/ARCHITECTURE.md, checked rather than hoped for: tests reach packages only
 * through their exports (never `packages/<pkg>/src/...` by path), and a package's `./internal`
 * export is imported by tests alone, never by another package, the bench or an example; and inside
 * the orchestrator, each folder imports only the folders below it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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
const specifiers = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

test('no test imports a package source file by path', () => {
  const offenders = sources(join(root, 'test')).flatMap((file) =>
    specifiers(file)
      .filter((s) => /packages\/[^/]+\/src\//.test(s))
      .map((s) => `${relative(root, file)}: ${s}`),
  );
  expect(offenders).toEqual([]);
});

test("nothing but tests imports a package's ./internal (or ./systems-internal) export", () => {
  const outside = ['packages', 'bench', 'examples', 'scripts'].flatMap((dir) => sources(join(root, dir)));
  expect(outside.length).toBeGreaterThan(50); // the scan found the code it guards
  const offenders = outside.flatMap((file) =>
    specifiers(file)
      .filter((s) => /^@state-divergence\/[^/]+\/(systems-)?internal$/.test(s))
      .map((s) => `${relative(root, file)}: ${s}`),
  );
  expect(offenders).toEqual([]);
});

/**
 * Inside the orchestrator, each folder and the folders it may import (docs/ARCHITECTURE.md,
 * "Inside the orchestrator"): every folder builds on the ones below it only, so report code never
 * reaches run code, and nothing under cli/ but the tables of every command knows that sweep or
 * experiments exist. A folder not named here has no place yet: all its imports are refused.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  model: [],
  check: ['model'],
  run: ['model', 'check'],
  report: ['model', 'check'],
  cli: ['model', 'check', 'run', 'report'],
  // The systems experiment runs each point through systems-run/'s runSystem, as `--system` does (not a copy of it).
  experiments: ['model', 'check', 'run', 'report', 'cli', 'systems-run'],
  // A run against a real system (--system NAME): beside experiments/, on the cli/ it is started from; it
  // reaches no run/ or check/ code of our broker's, and nothing under it learns a system's name. Its HTML page
  // draws on report/'s time axis and page style, as experiments/' does.
  'systems-run': ['model', 'check', 'report', 'cli'],
};
/** The cli/ files that list every command (the parser, the flag reference): experiments/'s and systems-run/'s door. */
const COMMAND_TABLES = ['cli/command-line.ts', 'cli/flag-reference.ts'];
/** The folders only COMMAND_TABLES may reach from below. */
const ABOVE_CLI = ['experiments', 'systems-run'];

/** A path's folder under src/, or '' for a file at its root (index.ts, internal.ts: the entries). */
const folderOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : '');

/** Whether an import from one orchestrator source file to another (under src/) breaks the rule. */
function breaksLayers(from: string, to: string): boolean {
  const [fromFolder, toFolder] = [folderOf(from), folderOf(to)];
  if (fromFolder === '' || fromFolder === toFolder) return false;
  if (ABOVE_CLI.includes(toFolder) && COMMAND_TABLES.includes(from)) return false;
  // A real system's fault relays are child processes started, tracked and reaped as our broker's run starts its
  // own (systems-run/network-links.ts): the process machinery of run/child/, none of run/'s logic.
  if (fromFolder === 'systems-run' && to.startsWith('run/child/')) return false;
  return !(MAY_IMPORT[fromFolder] ?? []).includes(toFolder);
}

test('each orchestrator folder imports only the folders below it', () => {
  const src = join(root, 'packages', 'orchestrator', 'src');
  const underSrc = (path: string): string => relative(src, path).replace(/\.js$/, '.ts');
  const edges = sources(src).flatMap((file) =>
    specifiers(file)
      .filter((s) => s.startsWith('.'))
      .map((s) => ({ from: underSrc(file), to: underSrc(join(dirname(file), s)) })),
  );
  // The scan found the imports it guards: every folder above model/ imports from another.
  const crossing = edges.filter((e) => folderOf(e.from) !== folderOf(e.to));
  const importing = new Set(crossing.map((e) => folderOf(e.from)));
  expect(Object.keys(MAY_IMPORT).filter((folder) => !importing.has(folder))).toEqual(['model']);
  const offenders = edges.filter((e) => breaksLayers(e.from, e.to)).map((e) => `${e.from} -> ${e.to}`);
  expect(offenders).toEqual([]);
});

test('the layer rule refuses what it should', () => {
  expect(breaksLayers('report/render-text.ts', 'run/plan.ts')).toBe(true);
  expect(breaksLayers('check/outcome.ts', 'experiments/sweep-point.ts')).toBe(true);
  expect(breaksLayers('cli/run-command.ts', 'experiments/sweep-command.ts')).toBe(true);
  expect(breaksLayers('model/options.ts', 'check/checker.ts')).toBe(true);
  expect(breaksLayers('newfolder/a.ts', 'model/options.ts')).toBe(true);
  expect(breaksLayers('cli/command-line.ts', 'experiments/sweep-command.ts')).toBe(false);
  expect(breaksLayers('cli/main.ts', 'experiments/sweep-command.ts')).toBe(true);
  expect(breaksLayers('cli/command-line.ts', 'systems-run/system-entry.ts')).toBe(false);
  expect(breaksLayers('cli/run-command.ts', 'systems-run/run-system.ts')).toBe(true);
  expect(breaksLayers('systems-run/run-system.ts', 'run/plan.ts')).toBe(true);
  expect(breaksLayers('systems-run/system-options.ts', 'cli/parse-faults.ts')).toBe(false);
  expect(breaksLayers('experiments/series.ts', 'run/run-mode.ts')).toBe(false);
  expect(breaksLayers('run/child/guardian.ts', 'run/plan.ts')).toBe(false);
  expect(breaksLayers('internal.ts', 'experiments/sweep-point.ts')).toBe(false);
});
