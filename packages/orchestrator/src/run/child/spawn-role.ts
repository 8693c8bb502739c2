import type { ChildRole, InitOf } from '@state-divergence/protocol';
import type { Logger } from '@state-divergence/runtime';
import { RunError } from '../../model/errors.js';
import type { ContractBreach } from './channel.js';
import type { ChildHandle } from './child-handle.js';
import { RoleProcess } from './role-process.js';
import { startNodeProcess } from './start-process.js';
import { fromExeca, startForeign, type StartedProcess } from './started-process.js';

const READY_TIMEOUT_MS = 15_000;

/** A consumer someone else wrote: its command line as given, and as split into argv. */
export interface ForeignCommand {
  command: string;
  argv: string[];
}

export interface SpawnOptions<R extends ChildRole> {
  role: R;
  name: string;
  /**
   * The configuration, possibly not known yet (the broker's port, the certificate):
   * the process starts and loads its modules at once, and gets this when it is ready.
   */
  init: InitOf<R> | Promise<InitOf<R>>;
  logger: Logger;
  /** Called as soon as the process exists, so teardown can reach it even while it boots. */
  track?: (child: ChildHandle) => void;
  /** How long booting, and then getting ready, may each take [default 15 s]. */
  readyTimeoutMs?: number;
  /** Run this instead of our package (a consumer only): it speaks docs/CONSUMER.md over JSON lines. */
  foreign?: ForeignCommand | undefined;
  /** Told of every way a foreign child breaks the contract (its malformed messages, a SIGKILL at stop). */
  breach?: ContractBreach;
}

function start<R extends ChildRole>(options: SpawnOptions<R>): StartedProcess {
  // A pool of consumers is the consumer's bundle, told by its init to host several (packages/consumer/src/pool.ts).
  if (options.foreign === undefined)
    return fromExeca(startNodeProcess(options.role === 'pool' ? 'consumer' : options.role));
  if (options.role !== 'consumer')
    throw new RunError('E_SPAWN', `only a consumer can be foreign, not the ${options.role}`);
  return startForeign(options.foreign.argv);
}

/**
 * Starts one child process, waits until it has booted (listening on IPC),
 * sends it its init message over IPC (never argv), and resolves once it says
 * `ready`. Listening starts before the child can speak: an IPC message sent
 * before the other side listens is lost.
 */
export async function spawnRole<R extends ChildRole>(options: SpawnOptions<R>): Promise<RoleProcess<R>> {
  // Awaited only once the child has booted: a configuration that fails before then (the broker
  // it depends on died at start) must not count as an unhandled rejection in the meantime.
  Promise.resolve(options.init).catch(() => {});
  const started = start(options);
  const command = options.foreign?.command ?? null;
  const { pid } = started;
  if (pid === undefined) {
    const { failure } = await started.ended;
    const who = command === null ? options.name : `${options.name} (foreign: ${command})`;
    throw new RunError('E_SPAWN', `${who} could not be started: ${failure ?? 'no pid'}`);
  }
  const child = new RoleProcess(
    { ...started, pid },
    options.role,
    options.name,
    options.logger,
    command,
    options.breach,
  );
  options.track?.(child);
  try {
    const timeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    await child.channel.waitFor((m) => (m.type === 'booted' ? m : undefined), timeoutMs, '`booted`');
    await child.channel.configure(await options.init);
    const ready = await child.channel.waitFor((m) => (m.type === 'ready' ? m : undefined), timeoutMs, '`ready`');
    child.port = ready.port;
    return child;
  } catch (error) {
    await child.stop();
    throw error;
  }
}
