import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { CodedError, sleep } from '@state-divergence/runtime';
import { freePorts } from './free-port.js';
import { signalGroup, track, trackDir, untrack, untrackDir } from './reaper.js';
import { settledWithin } from './settled-within.js';
import type { Endpoint, KnobValues, ServerRecipe } from './target-system.js';

const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 50;
/** SIGTERM's grace before SIGKILL: each server here exits within ~0.1 s when healthy. */
const STOP_GRACE_MS = 3_000;
const LOG_TAIL_CHARS = 600;

/** Hooks for whoever guards process groups (the orchestrator's guardian): each start, each end. */
export interface ServerWatch {
  started?(pid: number): void;
  ended?(pid: number): void;
}

export interface ServerOptions {
  /** Its data directory; a fresh one under the OS's temp dir, removed by stop(), when omitted. */
  dataDir?: string;
  watch?: ServerWatch;
}

/** A server child process of the harness: started, ready, and stopped or restarted by its pid. */
export interface RunningServer {
  readonly endpoint: Endpoint;
  readonly ports: readonly number[];
  readonly dataDir: string;
  /** The current process's pid (it leads its own process group); undefined while it is down. */
  readonly pid: number | undefined;
  /** SIGTERM, then SIGKILL after a grace; removes the data dir if it made it. */
  stop(): Promise<void>;
  /** SIGKILL at once (the crash fault); the data dir stays for restart(). */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data dir, and waits until it is ready. */
  restart(): Promise<void>;
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  untrackDir(dir);
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-LOG_TAIL_CHARS).trim();
  } catch {
    return '';
  }
}

/** Starts `recipe`'s server on free loopback ports and resolves once it answers a client. */
export async function startServer(
  name: string,
  recipe: ServerRecipe,
  knobs: KnobValues,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const ports = await freePorts(recipe.ports);
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `sd-${name}-`));
  if (ownDir) trackDir(dataDir);
  const endpoint = recipe.endpoint(ports);
  const logFile = join(dataDir, 'server.log');
  for (const [file, text] of Object.entries(recipe.files?.(ports, dataDir, knobs) ?? {})) {
    writeFileSync(join(dataDir, file), text);
  }
  /** The current process: its pid, and a promise settled when it has exited. */
  let child: { pid: number; exited: Promise<unknown> } | undefined;

  const launch = async (): Promise<void> => {
    const started = execa(recipe.binary, recipe.argv(ports, dataDir, knobs), {
      cwd: dataDir,
      stdin: 'ignore',
      stdout: { file: logFile, append: true },
      stderr: { file: logFile, append: true },
      detached: true,
      reject: false,
      buffer: false,
    });
    const pid = started.pid;
    if (pid === undefined) {
      const result = await started;
      throw new CodedError('E_SERVER', `${recipe.binary} did not start: ${result.message}`);
    }
    child = { pid, exited: started };
    track(pid);
    options.watch?.started?.(pid);
    let exited = false;
    void started.then(() => {
      exited = true;
      untrack(pid);
      options.watch?.ended?.(pid);
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await recipe.ready(endpoint).catch(() => false))) {
      if (exited || Date.now() > deadline) {
        signalGroup(pid, 'SIGKILL');
        const why = exited ? 'exited before it was ready' : `not ready within ${READY_TIMEOUT_MS} ms`;
        throw new CodedError('E_SERVER', `${name} server ${why}; its log ends: ${tail(logFile)}`);
      }
      await sleep(READY_POLL_MS);
    }
  };

  const end = async (signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    const running = child;
    if (running === undefined) return;
    child = undefined;
    signalGroup(running.pid, signal);
    const exited = await settledWithin(running.exited, graceMs);
    if (!exited) {
      signalGroup(running.pid, 'SIGKILL');
      await running.exited;
    }
  };

  try {
    await launch();
  } catch (error) {
    if (ownDir) removeDir(dataDir);
    throw error;
  }
  return {
    endpoint,
    ports,
    dataDir,
    get pid() {
      return child?.pid;
    },
    stop: async () => {
      await end('SIGTERM', STOP_GRACE_MS);
      if (ownDir) removeDir(dataDir);
    },
    kill: () => end('SIGKILL', STOP_GRACE_MS),
    restart: async () => {
      await end('SIGTERM', STOP_GRACE_MS);
      await launch();
    },
  };
}
