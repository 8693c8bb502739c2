import type { LogSettings } from '@state-divergence/protocol';
import { createLogger, exitFlushed, type Logger } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import type { ChildRegistry } from '../run/child/child-handle.js';
import { GuardedRegistry, startGuardian } from '../run/child/guardian.js';
import { ProcessGroup } from '../run/child/process-group.js';

/**
 * 0 the run completed (divergence under lossy is the expected result, not a failure);
 * 1 the run failed; 2 bad input; 3 it completed but a consumer ended early, could not
 * be checked, or (a foreign one) broke the child contract; 128 + n for signal n (129 SIGHUP, 130 SIGINT, 143 SIGTERM).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3 } as const;
/** SIGHUP too: a terminal closed under a run must stop it the orderly way (its data dir removed), not kill it where it
 * stands. */
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
/**
 * How long an aborted run's orderly teardown may take, from the abort, before the session gives up on
 * it and does what a second signal does: a test's timeout, a supervisor or `timeout(1)` sends one
 * SIGTERM and no second. The slowest measured (SIGTERM to exit, load 7-15): 3.2 s for 256 durable
 * consumers in pools of 64 beside two CPU hogs, 1.5 s for `--system all` (its servers started and
 * stopped); the longest bounded step is a foreign consumer that ignores `stop` and SIGTERM, 4.5 s,
 * then a server's 3 s SIGTERM grace: 15 s is over four times the one and twice the two in a row.
 */
export const TEARDOWN_DEADLINE_MS = 15_000;

/** SIGCONT and SIGKILL to a group, or its leader, or nothing if both are gone. */
const killGroup = (pgid: number) => new ProcessGroup(pgid).kill();

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
  /** Names the teardown step under way ("redis-pubsub's writer to close"): what the line says if it never ends. */
  waitingFor(what: string): void;
}

/**
 * The one interrupt and teardown path of every command that starts processes:
 * the first signal stops every process of the run the orderly way (the command
 * sees its signal aborted), a second kills them at once and exits; SIGTERM
 * exits 143, SIGINT 130; a closed stdout (EPIPE) or an internal error ends the
 * run the same orderly way with exit 1. Whatever happens, every child is reaped
 * before this resolves, the SIGSTOPped ones included. An orderly teardown still
 * under way TEARDOWN_DEADLINE_MS after the abort is given up on: every process
 * of the run is killed, one line says what it was waiting for, and the process
 * exits with the abort's code.
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
  // A SIGKILL leaves no path to run: the guardian covers it (packages/guardian).
  let guardian: ReturnType<typeof startGuardian> | undefined;
  let registry: ChildRegistry = new Set();
  /** Every group started outside the registry and not yet ended (servers, probes), as told to the guardian. */
  const guarded = new Map<number, string>();
  let waitingFor = 'the run to stop';
  /**
   * No more patience: SIGKILL (it works on stopped processes too) to every process of the run, here
   * and now, then the guardian, which would have nothing left to reap; what was written still goes out.
   */
  const killEverything = (code: number, line: string | null) => {
    for (const child of registry) child.kill();
    for (const pgid of guarded.keys()) killGroup(pgid);
    guardian?.kill();
    if (line !== null) process.stderr.write(line);
    void exitFlushed(code, command);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptedBy) {
      killEverything(SIGNAL_EXIT[signal] ?? EXIT.failed, null);
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
  // Armed by the abort, whatever aborted: a signal, a quit, a closed stdout, an internal error.
  let deadline: NodeJS.Timeout | undefined;
  controller.signal.addEventListener('abort', () => {
    deadline = setTimeout(() => {
      const alive = [...registry].filter((child) => child.alive).map((child) => child.name);
      const still = alive.length === 0 ? '' : ` (${alive.join(', ')} still running)`;
      // A signal's name, or the first line of what failed (an internal error's stack follows its message).
      const why = interruptedBy ?? (controller.signal.reason as Error).message.split('\n')[0];
      const line =
        `${command}: ${why}: gave up after ${TEARDOWN_DEADLINE_MS / 1000} s waiting for ${waitingFor}${still}; ` +
        'killed every process of the run\n';
      killEverything(interruptedBy ? (SIGNAL_EXIT[interruptedBy] ?? EXIT.failed) : EXIT.failed, line);
    }, TEARDOWN_DEADLINE_MS);
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  process.stdout.on('error', onFatal);
  try {
    guardian = startGuardian(log, logger);
    registry = new GuardedRegistry(guardian);
  } catch (error) {
    logger.warn({ err: error }, 'no guardian: a SIGKILL of the orchestrator would leave its processes behind');
  }
  const session: Session = {
    signal: controller.signal,
    registry,
    guard: (pgid, name) => {
      guarded.set(pgid, name);
      guardian?.guard({ pid: pgid, name });
    },
    release: (pgid) => {
      guarded.delete(pgid);
      guardian?.release({ pid: pgid });
    },
    logger,
    quit: () => interruptedBy ?? interrupt('SIGINT', 'quit from the live view; every process of the run was stopped'),
    waitingFor: (what) => {
      waitingFor = what;
    },
  };
  try {
    return await body(session);
  } catch (error) {
    const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
    process.stderr.write(`${command}: ${reason.message}\n`);
    return interruptedBy ? (SIGNAL_EXIT[interruptedBy] ?? EXIT.failed) : EXIT.failed;
  } finally {
    // The listeners stay: the process exits right after, and a late EPIPE must not crash it.
    waitingFor = 'its processes to exit';
    await Promise.all([...registry].map((child) => child.stop()));
    clearTimeout(deadline);
    guardian?.done();
  }
}
