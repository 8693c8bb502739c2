import { RunError } from '../../model/errors.js';
import { execaNode } from 'execa';
import { bundlePath, staleBundle, type BundledPackage } from './bundle-freshness.js';

/**
 * Starts one of our packages' process bundle (its `./bundle` export, built by
 * scripts/bundle.mjs: the entry point and everything it imports in one file, so
 * the child does not spend its start-up resolving and loading hundreds of
 * modules) as a Node child with an IPC channel
 * (structured-clone serialisation), in its own process group. Its own group: a
 * Ctrl-C in the terminal reaches only the orchestrator, which then stops every
 * child in order (a frozen child could not act on it anyway). execa's `cleanup`
 * does not apply to detached children; ours exit by themselves when the IPC
 * channel disconnects (runtime/src/child.ts), and the guardian covers the rest.
 * Children log to stderr or the log file; stdout belongs to the report.
 */
export function startNodeProcess(pkg: BundledPackage) {
  return execaNode(bundleOf(pkg), [], {
    ipc: true,
    serialization: 'advanced',
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
    buffer: false,
    reject: false,
    detached: true,
  });
}

/**
 * The package's bundle, refused when it is missing or older than any of the project's own files
 * it was built from (bundle-freshness.ts): `tsc -b` alone (an editor's watch build, `npm run
 * typecheck`) leaves the old bundle, which would run old code. The CLI checks every bundle before
 * it starts anything (bin/orchestrator.js); this covers the bench and the tests, which import it.
 */
function bundleOf(pkg: BundledPackage): string {
  const bundle = bundlePath(pkg);
  const stale = staleBundle(bundle, pkg);
  if (stale !== undefined) throw new RunError('E_SPAWN', stale);
  return bundle;
}
