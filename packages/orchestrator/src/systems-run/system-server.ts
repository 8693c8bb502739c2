import { createConnection } from 'node:net';
import {
  startServer,
  type Endpoint,
  type KnobValues,
  type ServerWatch,
  type TargetSystem,
} from '@state-divergence/systems';

/** How long a server someone runs is given to accept a TCP connection before the run gives up. */
const REACH_TIMEOUT_MS = 3_000;

/** The server a run talks to: started here, or someone's at `--endpoint`, which the run only leaves. */
export interface RunServer {
  readonly endpoint: Endpoint;
  stop(): Promise<void>;
  /** SIGKILL, and a start on the same ports and data dir (`--crash broker`): a server of ours only. */
  kill?(): Promise<void>;
  restart?(): Promise<void>;
}

/** Resolves once `endpoint`'s host accepts a TCP connection on its port; else one line naming the URL. */
function reach(system: TargetSystem, endpoint: Endpoint): Promise<void> {
  const host = new URL(endpoint.url).hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port: endpoint.port });
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`${system.name} at ${endpoint.url} is not reachable: ${why}`));
    };
    socket.setTimeout(REACH_TIMEOUT_MS, () => fail(`no answer within ${REACH_TIMEOUT_MS} ms`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
  });
}

/**
 * The run's server: `given` (an `--endpoint`), checked reachable before any client of the run
 * connects, and never stopped by it; or, without one, the system's own started here.
 */
export async function serverFor(
  system: TargetSystem,
  knobs: KnobValues,
  given: Endpoint | null,
  watch: ServerWatch,
): Promise<RunServer> {
  if (given === null) return startServer(system.name, system.server, knobs, { watch });
  await reach(system, given);
  return { endpoint: given, stop: async () => {} };
}
