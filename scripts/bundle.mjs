// Bundles every process entry point into one file of its own package (dist/bundle/),
// after `tsc -b` has built dist/. A process started from its bundle reads one file
// instead of resolving, reading and linking hundreds of small modules: that module
// loading was most of each child's start-up CPU (docs/ARCHITECTURE.md, "Start-up").
//
//   node scripts/bundle.mjs           bundle (what `npm run build`, `prepare`, `test` and `bench` do)
//   node scripts/bundle.mjs --clean   remove the bundles
import { renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each process, its tsc-built entry and where its bundle goes (inside its package, see below). */
const ENTRIES = [
  ...['broker', 'publisher', 'consumer', 'guardian', 'rogue'].map((role) => ({ pkg: role, entry: 'dist/main.js' })),
  // The CLI: ink and react stay outside and load only for the live view (a dynamic import, its own chunk).
  { pkg: 'orchestrator', entry: 'dist/cli/main.js', external: ['ink', 'react'], splitting: true },
];

const outdir = (pkg) => `${root}packages/${pkg}/dist/bundle`;
const staging = (pkg) => `${outdir(pkg)}.${process.pid}`;

// Always from scratch (chunk names carry a content hash, so stale ones would pile up), into a
// staging directory swapped in at the end: a run in progress never finds a bundle half-written.
if (process.argv.includes('--clean')) {
  for (const { pkg } of ENTRIES) rmSync(outdir(pkg), { recursive: true, force: true });
} else {
  await Promise.all(
    ENTRIES.map(({ pkg, entry, external = [], splitting = false }) =>
      build({
        entryPoints: { main: `${root}packages/${pkg}/${entry}` },
        // Inside the package: what the bundle does not contain (the QUIC native addon, which
        // @matrixai/quic requires through createRequire(import.meta.url); ink and react) is
        // resolved from node_modules up the tree, as from dist/.
        outdir: staging(pkg),
        bundle: true,
        splitting,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        external,
        // Bundled CommonJS (pino, yargs' helpers, ...) calls require() for Node's builtins:
        // give it a real one. (esbuild renames a bundled module's own `require`.) What would
        // not survive bundling is unused here: pino's transports (worker files found through
        // __dirname; our logger writes synchronously to a file descriptor) and yargs' locale
        // files (y18n falls back to its English keys, the text we print).
        banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
        sourcemap: true,
        logLevel: 'warning',
      }),
    ),
  );
  for (const { pkg } of ENTRIES) {
    rmSync(outdir(pkg), { recursive: true, force: true });
    renameSync(staging(pkg), outdir(pkg));
  }
}
