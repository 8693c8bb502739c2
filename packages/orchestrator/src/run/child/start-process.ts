import { fileURLToPath } from 'node:url';
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
  return execaNode(fileURLToPath(import.meta.resolve(`${packageName}/bundle`)), [], {
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
