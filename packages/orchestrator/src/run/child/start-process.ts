import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RunError } from '../../model/errors.js';
import { execaNode } from 'execa';

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
export function startNodeProcess(packageName: string) {
  return execaNode(bundleOf(packageName), [], {
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
 * The package's bundle, refused when it is missing or older than what tsc built: `tsc -b` alone
 * (an editor's watch build, `npm run typecheck`) leaves the old bundle, which would run old code.
 */
function bundleOf(packageName: string): string {
  const bundle = fileURLToPath(import.meta.resolve(`${packageName}/bundle`));
  const built = fileURLToPath(import.meta.resolve(packageName));
  const modified = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  const bundled = modified(bundle);
  if (bundled === undefined) throw new RunError('E_SPAWN', `${packageName} has no bundle (${bundle}): run npm run build`);
  if (bundled < (modified(built) ?? 0)) throw new RunError('E_SPAWN', `${packageName}'s bundle is older than its dist/: run npm run build`);
  return bundle;
}
