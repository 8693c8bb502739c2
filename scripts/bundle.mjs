// Bundles every process entry point into one file of its own package (dist/bundle/),
// after `tsc -b` has built dist/. A process started from its bundle reads one file
// instead of resolving, reading and linking hundreds of small modules: that module
// loading was most of each child's start-up CPU (docs/ARCHITECTURE.md, "Start-up").
//
// Beside each bundle, inputs.json lists the project's own files it was built from: the
// src/ file of each dist/ file esbuild read. The orchestrator refuses
// to start a bundle older than any of them (packages/orchestrator/src/run/child/bundle-freshness.ts),
// so an edit followed by `tsc -b` alone, in any package, never runs old code silently.
//
//   node scripts/bundle.mjs           bundle (what `npm run build`, `prepare`, `test` and `bench` do)
//   node scripts/bundle.mjs --clean   remove the bundles
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each process, its tsc-built entry and where its bundle goes (inside its package, see below). */
const ENTRIES = [
  // The broker's durable log: lmdb loads its native addon from a path it works out at run time
  // (node-gyp-build-optional-packages), which a bundle cannot hold; it stays in node_modules.
  { pkg: 'broker', entry: 'dist/main.js', external: ['lmdb'] },
  ...['publisher', 'consumer', 'guardian', 'rogue', 'relay'].map((role) => ({ pkg: role, entry: 'dist/main.js' })),
  // The CLI: ink and react stay outside and load only for the live view (a dynamic import, its own chunk); so do
  // the real systems' clients, loaded only under --system, whose probe consumer is a file of their package.
  {
    pkg: 'orchestrator',
    entry: 'dist/cli/main.js',
    external: ['ink', 'react', '@state-divergence/systems'],
    splitting: true,
  },
];

const outdir = (pkg) => `${root}packages/${pkg}/dist/bundle`;
const staging = (pkg) => `${outdir(pkg)}.${process.pid}`;

/**
 * The project's own inputs of one build, relative to the root (esbuild's metafile, run from
 * there, names them so): for each packages/P/dist/F.js it read, the packages/P/src/F.ts(x) tsc
 * compiled it from (so an edit is caught whether `tsc -b` ran or not), or the dist/ file itself.
 */
function ownInputs(metafile) {
  return Object.keys(metafile.inputs)
    .filter((path) => path.startsWith('packages/') && !path.includes('node_modules/'))
    .map((path) => {
      const match = /^(packages\/[^/]+)\/dist\/(.+)\.js$/.exec(path);
      const sources = match === null ? [] : [`${match[1]}/src/${match[2]}.ts`, `${match[1]}/src/${match[2]}.tsx`];
      return sources.find((source) => existsSync(root + source)) ?? path;
    });
}

// Always from scratch (chunk names carry a content hash, so stale ones would pile up), into a
// staging directory swapped in at the end: a run in progress never finds a bundle half-written.
if (process.argv.includes('--clean')) {
  for (const { pkg } of ENTRIES) rmSync(outdir(pkg), { recursive: true, force: true });
} else {
  await Promise.all(
    ENTRIES.map(async ({ pkg, entry, external = [], splitting = false }) => {
      const { metafile } = await build({
        absWorkingDir: root,
        metafile: true,
        entryPoints: { main: `${root}packages/${pkg}/${entry}` },
        // Inside the package: what the bundle does not contain (the QUIC native addon, which
        // @matrixai/quic requires through createRequire(import.meta.url); lmdb; ink and react) is
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
        banner: {
          js:
            "import { createRequire as __bundleRequire } from 'node:module'; const require = " +
            '__bundleRequire(import.meta.url);',
        },
        sourcemap: true,
        logLevel: 'warning',
      });
      // `root`: where the paths are relative to, from the bundle's own directory once it is in place.
      writeFileSync(
        `${staging(pkg)}/inputs.json`,
        `${JSON.stringify({ root: '../../../..', inputs: ownInputs(metafile) }, null, 1)}\n`,
      );
    }),
  );
  for (const { pkg } of ENTRIES) {
    rmSync(outdir(pkg), { recursive: true, force: true });
    renameSync(staging(pkg), outdir(pkg));
  }
}
