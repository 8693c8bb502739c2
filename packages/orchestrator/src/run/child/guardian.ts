import type { GuardianCommand, LogSettings } from '@state-divergence/protocol';
import { withDeadline, type Logger } from '@state-divergence/runtime';
import type { ChildHandle, ChildRegistry } from './child-handle.js';
import { startNodeProcess } from './start-process.js';

const READY_TIMEOUT_MS = 10_000;

/**
 * The orchestrator's side of the guardian (packages/guardian): a process in its
 * own group, never frozen, told each child's process group as it starts and
 * ends. If this process is killed outright, the guardian kills what is left
 * of the run; on a normal end it is told `done` and exits quietly.
 */
export interface Guardian {
  guard(child: ChildHandle): void;
  release(child: ChildHandle): void;
  /** The run ended normally (every child reaped): the guardian exits without acting. */
  done(): void;
}

export async function startGuardian(log: LogSettings, logger: Logger): Promise<Guardian> {
  // Its own group: a Ctrl-C at the terminal must not take it down with the orchestrator.
  const subprocess = startNodeProcess('@state-divergence/guardian');
  const send = (command: GuardianCommand) => subprocess.sendMessage(command).catch((error: unknown) => logger.warn({ err: error, command: command.type }, 'guardian unreachable'));
  const ready = subprocess.getOneMessage();
  await send({ type: 'init', log });
  await withDeadline(ready, READY_TIMEOUT_MS, `the guardian process said nothing within ${READY_TIMEOUT_MS / 1000} s`);
  return {
    guard: (child) => void send({ type: 'guard', pgid: child.pid, name: child.name }),
    release: (child) => void send({ type: 'release', pgid: child.pid }),
    done: () => void send({ type: 'done' }),
  };
}

/** The invocation's registry of children, each also placed under the guardian's watch until it exits. */
export class GuardedRegistry extends Set<ChildHandle> implements ChildRegistry {
  constructor(private readonly guardian: Guardian) {
    super();
  }

  override add(child: ChildHandle): this {
    if (!this.has(child)) {
      this.guardian.guard(child);
      void child.exited.then(() => this.guardian.release(child));
    }
    return super.add(child);
  }
}
