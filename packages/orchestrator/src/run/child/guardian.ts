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
  /** Only the child's pid (its process group's id) and name are sent: a server the run started is guarded alike. */
  guard(child: Pick<ChildHandle, 'pid' | 'name'>): void;
  release(child: Pick<ChildHandle, 'pid'>): void;
  /** The run ended normally (every child reaped): the guardian exits without acting. */
  done(): void;
  /**
   * SIGKILL to the guardian, which has no time to act: for a session that gave up on its teardown and
   * has killed every group it listed itself (its reap would write a warning per group on stderr).
   */
  kill(): void;
}

/**
 * Starts the guardian before any child, without waiting for it to boot: its
 * commands wait on the IPC channel behind `init` and are read in order, so the
 * cluster boots alongside it instead of after it (waiting for its `ready` put
 * its boot, ~0.1 s alone, before every child's). Until it has read them no
 * child is frozen yet, and an unfrozen child exits by itself when the
 * orchestrator dies. If it never says ready, that is logged once and it is no
 * longer written to; the run goes on, as it did when this was awaited.
 */
export function startGuardian(log: LogSettings, logger: Logger): Guardian {
  // Its own group: a Ctrl-C at the terminal must not take it down with the orchestrator.
  const subprocess = startNodeProcess('guardian');
  let reachable = true;
  const send = (command: GuardianCommand) => {
    if (reachable)
      subprocess
        .sendMessage(command)
        .catch((error: unknown) => logger.warn({ err: error, command: command.type }, 'guardian unreachable'));
  };
  const ready = subprocess.getOneMessage();
  send({ type: 'init', log });
  withDeadline(ready, READY_TIMEOUT_MS, `the guardian process said nothing within ${READY_TIMEOUT_MS / 1000} s`).catch(
    (error: unknown) => {
      reachable = false;
      logger.warn({ err: error }, 'no guardian: a SIGKILL of the orchestrator would leave its processes behind');
    },
  );
  return {
    guard: (child) => send({ type: 'guard', pgid: child.pid, name: child.name }),
    release: (child) => send({ type: 'release', pgid: child.pid }),
    done: () => send({ type: 'done' }),
    kill: () => {
      reachable = false;
      subprocess.kill('SIGKILL');
    },
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
