import { getEachMessage, getOneMessage, sendMessage } from 'execa';
import {
  initProblem,
  isChildInit,
  isOfRole,
  isOrchestratorCommand,
  type ChildInit,
  type ChildRole,
  type InitOf,
  type ChildMessage,
} from '@state-divergence/protocol';
import { serveRequest, type RoleHandlers } from './serve-request.js';
import { createLogger, setLogPhase, type Logger } from './logger.js';
import { exitFlushed } from './exit.js';

/**
 * How long a child gives its QUIC endpoints to close before it exits anyway.
 * A client's forced close takes 20-180 ms; the broker's `server.stop({ force: true })`
 * had not finished after 1.5 s (it waits out QUIC's closing period of every
 * connection), so a longer budget only made every teardown wait for the broker.
 * Nothing needs that wait: every peer is stopped at the same moment, and logs
 * are written synchronously (runtime/src/logger.ts).
 */
const CLOSE_BUDGET_MS = 100;
const PROGRESS_INTERVAL_MS = 1_000;

export interface ChildContext<I extends ChildInit> {
  init: I;
  logger: Logger;
  send(message: ChildMessage): void;
  /**
   * True once the orchestrator has said the run is over (`ending`): every process is about to be
   * stopped, so a stream that ends from now on is the run's end, not a failure. Only that command
   * sets it; the log phase is a log field and decides nothing.
   */
  ending(): boolean;
  /** Ends the process: closes transports (bounded), then exits with `code`. */
  exit(code: number): Promise<never>;
}

function send(message: ChildMessage): void {
  // The orchestrator may already be gone (it is tearing us down); nothing to report to then.
  sendMessage(message).catch(() => {});
}

/** How one role is built from its init; see roleEntry. */
export interface RoleEntry {
  role: ChildRole;
  /** Builds the role when `init` is its own; undefined when it is another role's. */
  setUp(init: ChildInit, context: Omit<ChildContext<ChildInit>, 'init'>): Promise<RoleHandlers> | undefined;
}

/** A role a process can be told to be, and how to build it (runChildOf): the init's `role` picks one. */
export function roleEntry<R extends ChildRole>(
  role: R,
  setUp: (context: ChildContext<InitOf<R>>) => Promise<RoleHandlers>,
): RoleEntry {
  return {
    role,
    setUp: (init, context) => (isOfRole<R, 'init'>(init, role) ? setUp({ ...context, init }) : undefined),
  };
}

/**
 * Says `booted`, then waits for the init message. Listening starts first: a
 * message sent before the other side listens is silently dropped. A child told
 * to stop before it was configured (the run gave up on it) exits quietly; one
 * sent an init it cannot use says which field is wrong and exits 1.
 */
async function awaitInit(roles: ChildRole[]): Promise<ChildInit> {
  const initArrived = getOneMessage();
  await sendMessage({ type: 'booted', pid: process.pid } satisfies ChildMessage);
  const first = await initArrived;
  const named = roles.join(' or ');
  if (isOrchestratorCommand(first) && first.type === 'stop') return exitFlushed(0, named);
  if (!isChildInit(first)) return refuseInit(named, initProblem(first) ?? 'its init is unreadable');
  if (!roles.includes(first.role)) return refuseInit(named, `init.role is "${first.role}", not "${named}"`);
  return first;
}

/** No logger exists yet (its settings are in the init): one line on stderr, and `fatal` to the orchestrator. */
async function refuseInit(role: string, problem: string): Promise<never> {
  const message = `a ${role} process cannot start: ${problem}`;
  process.stderr.write(`${message}\n`);
  await sendMessage({ type: 'fatal', message } satisfies ChildMessage).catch(() => {});
  return exitFlushed(1, role);
}

/** What a command may change in the child's own lifecycle. */
interface Lifecycle {
  exit(code: number): Promise<never>;
  /** The run is over: see ChildContext.ending. */
  markEnding(): void;
}

/** Acts on each command from the orchestrator until the channel closes. */
async function serveCommands(role: RoleHandlers, lifecycle: Lifecycle, logger: Logger): Promise<void> {
  for await (const raw of getEachMessage()) {
    if (!isOrchestratorCommand(raw)) {
      logger.warn({ message: raw }, 'ignored a malformed command from the orchestrator');
      continue;
    }
    const command = raw;
    switch (command.type) {
      case 'start':
        role.start?.(command.durationMs);
        break;
      case 'request': {
        const target = command.member === undefined ? { handlers: role, logger } : role.members?.get(command.member);
        if (target === undefined)
          send({
            type: 'refused',
            id: command.id,
            kind: command.kind,
            message: `it hosts no consumer named ${command.member}`,
          });
        else serveRequest(target.handlers, command, send, target.logger);
        break;
      }
      case 'phase':
        setLogPhase(command.phase);
        break;
      case 'ending':
        lifecycle.markEnding();
        break;
      case 'endSubscriber':
        role.endSubscriber?.(command.name, command.reason);
        break;
      case 'shape':
        role.shape?.(command.up, command.down);
        break;
      case 'reset':
        role.reset?.();
        break;
      case 'brokerLost':
        if (command.member === undefined) role.brokerLost?.();
        else role.members?.get(command.member)?.handlers.brokerLost?.();
        break;
      case 'stop':
        await lifecycle.exit(0);
    }
  }
}

/**
 * The life of a child process: say `booted`, read the init message, build
 * the role, listen for commands, announce `ready`, report counters once a second,
 * and exit promptly on `stop`, on IPC disconnect (orchestrator gone) or on a
 * fatal error. Listening starts before `ready` is sent: an IPC message sent
 * before the other side listens is silently dropped.
 */
export async function runChild<R extends ChildRole>(
  roleName: R,
  setUp: (context: ChildContext<InitOf<R>>) => Promise<RoleHandlers>,
): Promise<void> {
  return runChildOf(roleEntry(roleName, setUp));
}

/** The once-a-second `counters` line and `progress` message, for the role and for each member it hosts. */
function reportProgress(role: RoleHandlers, logger: Logger): void {
  const counters = role.counters();
  logger.info(counters, 'counters');
  send({ type: 'progress', counters });
  for (const [member, hosted] of role.members ?? []) {
    const own = hosted.handlers.counters();
    hosted.logger.info(own, 'counters');
    send({ type: 'progress', counters: own, member });
  }
}

/** runChild for a process that may be told to be any of several roles (a consumer, or a pool of consumers): its init
 * says which. */
export async function runChildOf(...entries: RoleEntry[]): Promise<void> {
  const init = await awaitInit(entries.map((e) => e.role));
  setLogPhase('starting');
  const logger = createLogger(init.name, init.log);
  let handlers: RoleHandlers | undefined;
  let exiting = false;
  let ending = false;

  const exit = async (code: number): Promise<never> => {
    if (!exiting) {
      exiting = true;
      const closed = handlers?.close() ?? Promise.resolve();
      await Promise.race([closed.catch(() => {}), new Promise((resolve) => setTimeout(resolve, CLOSE_BUDGET_MS))]);
      logger.debug({ code }, 'exit');
      await exitFlushed(code, init.name);
    }
    return new Promise<never>(() => {});
  };
  const fail = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, 'fatal');
    send({ type: 'fatal', message });
    void exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  // The orchestrator died or closed the channel: nobody will ever stop us otherwise.
  process.on('disconnect', () => void exit(1));
  process.on('SIGTERM', () => void exit(0));

  try {
    const context = { logger, send, exit, ending: () => ending };
    // awaitInit took only an init of one of these roles: exactly one entry builds it.
    handlers = await entries.map((e) => e.setUp(init, context)).find((built) => built !== undefined);
    if (handlers === undefined) throw new Error(`no role is built from a ${init.role} init`);
  } catch (error) {
    fail(error);
    return;
  }
  const role = handlers;
  serveCommands(role, { exit, markEnding: () => (ending = true) }, logger).catch(fail);
  setInterval(() => reportProgress(role, logger), PROGRESS_INTERVAL_MS).unref();

  // Each member says it too: every consumer's first line in the log is its `ready`, pooled or not.
  for (const hosted of role.members?.values() ?? []) hosted.logger.info({ pool: init.name }, 'ready');
  logger.info({ port: role.port }, 'ready');
  send(
    role.port === undefined
      ? { type: 'ready', pid: process.pid }
      : { type: 'ready', pid: process.pid, port: role.port },
  );
}
