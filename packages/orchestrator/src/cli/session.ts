import type { LogSettings } from '@state-divergence/protocol';
import { createLogger, exitFlushed, type Logger } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import type { ChildRegistry } from '../run/child/child-handle.js';
import { GuardedRegistry, startGuardian } from '../run/child/guardian.js';

/**
 * 0 the run completed (divergence under lossy is the expected result, not a failure);
 * 1 the run failed; 2 bad input; 3 it completed but a consumer ended early, could not
 * be checked, or (a foreign one) broke the child contract; 128 + n for signal n (129 SIGHUP, 130 SIGINT, 143 SIGTERM).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3 } as const;
/** SIGHUP too: a terminal closed under a run must stop it the orderly way (its data dir removed), not kill it where it
 * stands. */
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export interface Session {
  /** Aborts on the first SIGHUP/SIGINT/SIGTERM, a quit from the live view, a closed stdout or our own bug. */
  signal: AbortSignal;
  /** Every child started in this invocation: reaped when the session ends, killed on a second signal, and by the
   * guardian if this process is killed. */
  registry: ChildRegistry;
  /**
   * A process group this invocation started outside the registry (a real system's server, a probe:
   * packages/systems reaps them on every exit path it sees), put under the guardian's watch for the
   * one it cannot see, a SIGKILL of this process; `release` once it has exited.
   */
  guard(pgid: number, name: string): void;
  release(pgid: number): void;
  /** The process's one root logger (pino's habit: modes log through children of it). */
  logger: Logger;
  /** A quit from the live view: an interruption like Ctrl-C (exit 130). */
  quit(): void;
}

/**
 * The one interrupt and teardown path of every command that starts processes:
 * the first signal stops every process of the run the orderly way (the command
 * sees its signal aborted), a second kills them at once and exits; SIGTERM
 * exits 143, SIGINT 130; a closed stdout (EPIPE) or an internal error ends the
 * run the same orderly way with exit 1. Whatever happens, every child is reaped
 * before this resolves, the SIGSTOPped ones included.
 */
export async function runSession(
  command: string,
  log: LogSettings,
  body: (session: Session) => Promise<number>,
): Promise<number> {
  const logger = createLogger('orchestrator', log);
  const controller = new AbortController();
  let interruptedBy: NodeJS.Signals | undefined;
  const interrupt = (signal: NodeJS.Signals, message: string) => {
    interruptedBy = signal;
    controller.abort(new RunError('E_INTERRUPTED', message));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptedBy) {
      // Second signal: no more patience. SIGKILL works on stopped processes too; what was written still goes out.
      for (const child of registry) child.kill();
      void exitFlushed(SIGNAL_EXIT[signal] ?? EXIT.failed, command);
      return;
    }
    process.stderr.write(`${command}: ${signal}, stopping every process of the run\n`);
    interrupt(signal, `interrupted by ${signal}`);
  };
  const onFatal = (error: unknown) => {
    if (controller.signal.aborted) return;
    const reason =
      (error as NodeJS.ErrnoException)?.code === 'EPIPE'
        ? 'stdout was closed (EPIPE)'
        : `internal error: ${(error as Error)?.stack ?? String(error)}`;
    controller.abort(new RunError('E_FATAL', reason, { cause: error }));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  process.stdout.on('error', onFatal);
  // A SIGKILL leaves no path to run: the guardian covers it (packages/guardian).
  let guardian: ReturnType<typeof startGuardian> | undefined;
  let registry: ChildRegistry = new Set();
  try {
    guardian = startGuardian(log, logger);
    registry = new GuardedRegistry(guardian);
  } catch (error) {
    logger.warn({ err: error }, 'no guardian: a SIGKILL of the orchestrator would leave its processes behind');
  }
  const session: Session = {
    signal: controller.signal,
    registry,
    guard: (pgid, name) => guardian?.guard({ pid: pgid, name }),
    release: (pgid) => guardian?.release({ pid: pgid }),
    logger,
    quit: () => interruptedBy ?? interrupt('SIGINT', 'quit from the live view; every process of the run was stopped'),
  };
  try {
    return await body(session);
  } catch (error) {
    const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
    process.stderr.write(`${command}: ${reason.message}\n`);
    return interruptedBy ? (SIGNAL_EXIT[interruptedBy] ?? EXIT.failed) : EXIT.failed;
  } finally {
    // The listeners stay: the process exits right after, and a late EPIPE must not crash it.
    await Promise.all([...registry].map((child) => child.stop()));
    guardian?.done();
  }
}
