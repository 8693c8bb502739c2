import { getEachMessage, getOneMessage, sendMessage } from 'execa';
import type { ChildInit, ChildMessage, Counters, DigestVerdict, OrchestratorCommand, ProcessResources, Report } from '@state-divergence/protocol';
import { errorMessage } from './error-message.js';
import { createLogger, setLogPhase, type Logger } from './logger.js';

/** How long a child gives its QUIC endpoints to close before it exits anyway. */
const CLOSE_BUDGET_MS = 500;
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
  /** Broker: a subscriber's process is gone. */
  endSubscriber?(name: string, reason: string): void;
  /** Releases transports. Must not wait for a graceful QUIC close. */
  close(): Promise<void>;
}

export interface ChildContext<I extends ChildInit> {
  init: I;
  logger: Logger;
  send(message: ChildMessage): void;
  /** Ends the process: closes transports (bounded), then exits with `code`. */
  exit(code: number): Promise<never>;
}

export function processResources(): ProcessResources {
  const usage = process.resourceUsage();
  return { cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), maxRssKb: usage.maxRSS };
}

function send(message: ChildMessage): void {
  // The orchestrator may already be gone (it is tearing us down); nothing to report to then.
  sendMessage(message).catch(() => {});
}

/**
 * The life of a child process: say `booted`, read the init message, build
 * the role, listen for commands, announce `ready`, report counters once a second,
 * and exit promptly on `stop`, on IPC disconnect (orchestrator gone) or on a
 * fatal error. Listening starts before `ready` is sent: an IPC message sent
 * before the other side listens is silently dropped.
 */
export async function runChild<I extends ChildInit>(setUp: (context: ChildContext<I>) => Promise<RoleHandlers>): Promise<void> {
  // Listen first, then say so: a message sent before the other side listens is lost.
  const initArrived = getOneMessage();
  await sendMessage({ type: 'booted', pid: process.pid } satisfies ChildMessage);
  const first = (await initArrived) as unknown as I | OrchestratorCommand;
  // Told to stop before it was configured (e.g. the run gave up waiting for it to boot).
  if (!('role' in first)) process.exit(0);
  const init = first;
  setLogPhase('starting');
  const logger = createLogger(init.name, init.log);
  let handlers: RoleHandlers | undefined;
  let exiting = false;

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

  const context: ChildContext<I> = { init, logger, send, exit };
  try {
    handlers = await setUp(context);
  } catch (error) {
    fail(error);
    return;
  }
  const role = handlers;

  void (async () => {
    for await (const raw of getEachMessage()) {
      const command = raw as unknown as OrchestratorCommand;
      switch (command.type) {
        case 'start':
          role.start?.(command.durationMs);
          break;
        case 'status':
          send({ type: 'status', id: command.id, counters: role.counters() });
          break;
        case 'gather':
          send({ type: 'gathered', id: command.id, report: role.gather(), resources: processResources() });
          break;
        case 'digest':
          if (!role.digest) throw new Error(`${init.name} cannot compute a digest`);
          // Not awaited: the digest needs frames from the broker, and commands must keep flowing.
          // A failed check is a finding about this consumer, not a reason for it to die.
          role.digest().then(
            (verdict) => send({ type: 'digested', id: command.id, verdict }),
            (error: unknown) => send({ type: 'digested', id: command.id, verdict: { match: null, error: errorMessage(error), local: '', broker: '', brokerOffset: 0, localOffset: 0 } }),
          );
          break;
        case 'versions':
          send({ type: 'versions', id: command.id, versions: role.versions?.() ?? new Float64Array() });
          break;
        case 'phase':
          setLogPhase(command.phase);
          break;
        case 'endSubscriber':
          role.endSubscriber?.(command.name, command.reason);
          break;
        case 'stop':
          await exit(0);
      }
    }
  })().catch(fail);

  setInterval(() => {
    const counters = role.counters();
    logger.info(counters, 'counters');
    send({ type: 'progress', counters });
  }, PROGRESS_INTERVAL_MS).unref();

  logger.info({ port: role.port }, 'ready');
  send(role.port === undefined ? { type: 'ready', pid: process.pid } : { type: 'ready', pid: process.pid, port: role.port });
}
