import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import type { ChildInit, ChildMessage, Counters, DigestVerdict, OrchestratorCommand, ProcessResources, Report } from '@state-divergence/protocol';
import { sleep, withDeadline, type Logger } from '@state-divergence/runtime';
import { RunError } from './errors.js';

const READY_TIMEOUT_MS = 15_000;
/** How long a child gets to exit after `stop` before it is SIGKILLed. */
const STOP_GRACE_MS = 1_500;

type Listener = (message: ChildMessage) => void;

export interface ChildHandle {
  readonly name: string;
  readonly role: ChildInit['role'];
  readonly pid: number;
  /** CPU and peak memory, as of the last gather. */
  readonly resources: ProcessResources | undefined;
  readonly port: number | undefined;
  /** Latest counters the child pushed (a frozen child's stay at what it last said). */
  readonly latest: Counters | undefined;
  readonly frozen: boolean;
  readonly alive: boolean;
  /** Resolves when the process has exited, with how. */
  readonly exited: Promise<string>;
  send(command: OrchestratorCommand): void;
  status(timeoutMs: number): Promise<Counters>;
  gather(timeoutMs: number): Promise<Report>;
  digest(timeoutMs: number): Promise<DigestVerdict>;
  versions(timeoutMs: number): Promise<Float64Array>;
  on(listener: Listener): void;
  freeze(): void;
  thaw(): void;
  /** SIGCONT, ask over IPC, wait a bounded time, SIGKILL. Never throws. */
  stop(): Promise<void>;
  /** Immediate: SIGCONT and SIGKILL to the process group (for a second Ctrl-C). */
  kill(): void;
}

const entryPoint = (role: ChildInit['role']): string => fileURLToPath(import.meta.resolve(`@state-divergence/${role}`));

export interface SpawnOptions<I extends ChildInit> {
  role: I['role'];
  name: string;
  /**
   * The configuration, possibly not known yet (the broker's port, the certificate):
   * the process starts and loads its modules at once, and gets this when it is ready.
   */
  init: I | Promise<I>;
  logger: Logger;
  /** Called as soon as the process exists, so teardown can reach it even while it boots. */
  track?: (child: ChildHandle) => void;
  /** How long booting, and then getting ready, may each take [default 15 s]. */
  readyTimeoutMs?: number;
}

/**
 * Starts one child process, waits until it has booted (listening on IPC),
 * sends it its init message over IPC (never argv), and resolves once it says
 * `ready`. Listening starts before the child can speak: an IPC message sent
 * before the other side listens is lost.
 */
export async function spawnRole<I extends ChildInit>(options: SpawnOptions<I>): Promise<ChildHandle> {
  const { logger } = options;
  const init = { role: options.role, name: options.name };
  const subprocess = execaNode(entryPoint(init.role), [], {
    ipc: true,
    serialization: 'advanced',
    stdin: 'ignore',
    // Children log to stderr or the log file; stdout belongs to the report.
    stdout: 'ignore',
    stderr: 'inherit',
    buffer: false,
    reject: false,
    // Its own process group: a Ctrl-C in the terminal reaches only the orchestrator,
    // which then stops every child in order (a frozen child could not act on it anyway).
    // execa's `cleanup` does not apply to detached children; they exit by themselves
    // when the IPC channel disconnects (runtime/src/child.ts).
    detached: true,
    forceKillAfterDelay: STOP_GRACE_MS,
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    const result = await subprocess;
    throw new RunError('E_SPAWN', `${init.name} could not be started: ${result.message ?? 'no pid'}`);
  }
  let alive = true;
  let frozen = false;
  let port: number | undefined;
  let latest: Counters | undefined;
  let resources: ProcessResources | undefined;
  const listeners = new Set<Listener>();
  const exited = subprocess.then((result) => {
    alive = false;
    const how = result.signal ? `killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    logger.info({ child: init.name, childPid: pid, how }, 'child exited');
    return how;
  });

  void (async () => {
    for await (const raw of subprocess.getEachMessage()) {
      const message = raw as unknown as ChildMessage;
      if (message.type === 'progress') latest = message.counters;
      for (const listener of listeners) listener(message);
    }
  })().catch(() => {});

  const nextMessage = <T extends ChildMessage>(match: (m: ChildMessage) => m is T, timeoutMs: number, what: string): Promise<T> => {
    let listener: Listener | undefined;
    const arrived = new Promise<T>((resolve, reject) => {
      listener = (m) => {
        if (match(m)) resolve(m);
        else if (m.type === 'fatal') reject(new RunError('E_CHILD_FATAL', `${init.name} (pid ${pid}) failed: ${m.message}`));
      };
      listeners.add(listener);
      void exited.then((how) => reject(new RunError('E_CHILD_EXIT', `${init.name} (pid ${pid}) ${how} while the orchestrator waited for ${what}`)));
    });
    return withDeadline(arrived, timeoutMs, `${init.name} (pid ${pid}) sent no ${what} within ${timeoutMs / 1000} s; see its log`).finally(() =>
      listeners.delete(listener!),
    );
  };

  let requestId = 0;
  const request = async (type: 'status' | 'gather' | 'digest' | 'versions', timeoutMs: number): Promise<ChildMessage> => {
    const id = ++requestId;
    const isReply = (m: ChildMessage): m is ChildMessage =>
      (m.type === 'status' || m.type === 'gathered' || m.type === 'digested' || m.type === 'versions') && m.id === id;
    const reply = nextMessage(isReply, timeoutMs, `${type} reply`);
    handle.send({ type, id });
    return reply;
  };

  /** Signals the child's whole process group (it leads it), falling back to the pid. */
  const signal = (name: NodeJS.Signals): void => {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, name);
        return;
      } catch {
        // Group or process already gone: try the next, then nothing to signal.
      }
    }
  };

  const handle: ChildHandle = {
    name: init.name,
    role: init.role,
    pid,
    get resources() {
      return resources;
    },
    get port() {
      return port;
    },
    get latest() {
      return latest;
    },
    get frozen() {
      return frozen;
    },
    get alive() {
      return alive;
    },
    exited,
    send: (command) => {
      if (alive) subprocess.sendMessage(command as never).catch(() => {});
    },
    status: async (timeoutMs) => {
      const reply = await request('status', timeoutMs);
      if (reply.type !== 'status') throw new Error('unreachable');
      return reply.counters;
    },
    gather: async (timeoutMs) => {
      const reply = await request('gather', timeoutMs);
      if (reply.type !== 'gathered') throw new Error('unreachable');
      resources = reply.resources;
      return reply.report;
    },
    digest: async (timeoutMs) => {
      const reply = await request('digest', timeoutMs);
      if (reply.type !== 'digested') throw new Error('unreachable');
      return reply.verdict;
    },
    versions: async (timeoutMs) => {
      const reply = await request('versions', timeoutMs);
      if (reply.type !== 'versions') throw new Error('unreachable');
      return reply.versions;
    },
    on: (listener) => listeners.add(listener),
    freeze: () => {
      signal('SIGSTOP');
      frozen = true;
    },
    thaw: () => {
      signal('SIGCONT');
      frozen = false;
    },
    kill: () => {
      signal('SIGCONT');
      signal('SIGKILL');
    },
    stop: async () => {
      if (!alive) return;
      // A stopped process cannot act on anything but SIGKILL: continue it first.
      handle.thaw();
      handle.send({ type: 'stop' });
      const gone = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
      if (!gone) {
        logger.warn({ child: init.name, childPid: pid }, `no exit within ${STOP_GRACE_MS} ms of stop; SIGKILL`);
        signal('SIGKILL');
        await Promise.race([exited, sleep(STOP_GRACE_MS)]);
      }
    },
  };

  options.track?.(handle);
  try {
    const timeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    await nextMessage((m): m is Extract<ChildMessage, { type: 'booted' }> => m.type === 'booted', timeoutMs, '`booted`');
    subprocess.sendMessage((await options.init) as never).catch(() => {});
    const ready = await nextMessage((m): m is Extract<ChildMessage, { type: 'ready' }> => m.type === 'ready', timeoutMs, '`ready`');
    port = ready.port;
    return handle;
  } catch (error) {
    await handle.stop();
    throw error;
  }
}
