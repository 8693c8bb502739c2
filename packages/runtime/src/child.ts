import { getEachMessage, getOneMessage, sendMessage } from 'execa';
import { initProblem, isChildInit, isOfRole, isOrchestratorCommand, type ChildInit, type ChildRole, type InitOf, type ChildMessage, type Counters, type DigestVerdict, type LastWrites, type LinkShape, type Report } from '@state-divergence/protocol';
import { serveRequest } from './serve-request.js';
import { createLogger, setLogPhase, type Logger } from './logger.js';

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

/** What a role implements; the lifecycle around it is the same for every child. */
export interface RoleHandlers {
  /** Sent in `ready` (the broker's listening port). */
  port?: number;
  counters(): Counters;
  gather(): Report;
  start?(durationMs: number): void;
  /** Consumers: compare the local digest with the broker's. */
  digest?(): Promise<DigestVerdict>;
  /** Publisher and consumers: live version per key (0: absent or deleted). */
  versions?(): Float64Array;
  /** Broker: each key's last-write offset and each subscriber's drops, for the live view (it must stay cheap: see LastWrites). */
  lastWrites?(): LastWrites;
  /** Broker: a subscriber's process is gone. */
  endSubscriber?(name: string, reason: string): void;
  /** Publisher and consumers: the broker was killed (see the `brokerLost` command). */
  brokerLost?(): void;
  /** Relay: shape each direction of its link from now on (see LinkShape). */
  shape?(up: LinkShape, down: LinkShape): void;
  /** Releases transports. Must not wait for a graceful QUIC close. */
  close(): Promise<void>;
}

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

/**
 * Says `booted`, then waits for the init message. Listening starts first: a
 * message sent before the other side listens is silently dropped. A child told
 * to stop before it was configured (the run gave up on it) exits quietly; one
 * sent an init it cannot use says which field is wrong and exits 1.
 */
async function awaitInit<R extends ChildRole>(role: R): Promise<InitOf<R>> {
  const initArrived = getOneMessage();
  await sendMessage({ type: 'booted', pid: process.pid } satisfies ChildMessage);
  const first = await initArrived;
  if (isOrchestratorCommand(first) && first.type === 'stop') process.exit(0);
  if (!isChildInit(first)) return refuseInit(role, initProblem(first) ?? 'its init is unreadable');
  if (!isOfRole(first, role)) return refuseInit(role, `init.role is "${first.role}", not "${role}"`);
  return first;
}

/** No logger exists yet (its settings are in the init): one line on stderr, and `fatal` to the orchestrator. */
async function refuseInit(role: ChildRole, problem: string): Promise<never> {
  const message = `a ${role} process cannot start: ${problem}`;
  process.stderr.write(`${message}\n`);
  await sendMessage({ type: 'fatal', message } satisfies ChildMessage).catch(() => {});
  process.exit(1);
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
      case 'request':
        serveRequest(role, command, send, logger);
        break;
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
      case 'brokerLost':
        role.brokerLost?.();
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
export async function runChild<R extends ChildRole>(roleName: R, setUp: (context: ChildContext<InitOf<R>>) => Promise<RoleHandlers>): Promise<void> {
  const init = await awaitInit(roleName);
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
      process.exit(code);
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
    handlers = await setUp({ init, logger, send, exit, ending: () => ending });
  } catch (error) {
    fail(error);
    return;
  }
  const role = handlers;
  serveCommands(role, { exit, markEnding: () => (ending = true) }, logger).catch(fail);
  setInterval(() => {
    const counters = role.counters();
    logger.info(counters, 'counters');
    send({ type: 'progress', counters });
  }, PROGRESS_INTERVAL_MS).unref();

  logger.info({ port: role.port }, 'ready');
  send(role.port === undefined ? { type: 'ready', pid: process.pid } : { type: 'ready', pid: process.pid, port: role.port });
}
