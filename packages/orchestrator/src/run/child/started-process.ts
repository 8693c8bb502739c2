import { Duplex } from 'node:stream';
import { execa } from 'execa';
import type { IpcSubprocess } from './channel.js';
import { JsonLineChannel } from './json-lines.js';

/** A started child process as the orchestrator drives it, whoever wrote it: ours (startNodeProcess) or foreign
 * (startForeign). */
export interface StartedProcess {
  pid: number | undefined;
  /** Settles once the process has ended: how, in words ("killed by SIGKILL"); `failure` when it never started. */
  ended: Promise<{ how: string; failure: string | undefined }>;
  ipc: IpcSubprocess;
}

interface ExecaResult {
  signal?: string | undefined;
  exitCode?: number | undefined;
  failed: boolean;
  message?: string | undefined;
}

/** Adapts an execa subprocess whose IPC is execa's own (our children). */
export function fromExeca(
  subprocess: PromiseLike<ExecaResult> & IpcSubprocess & { pid?: number | undefined },
): StartedProcess {
  return { pid: subprocess.pid, ended: endedOf(subprocess), ipc: subprocess };
}

function endedOf(result: PromiseLike<ExecaResult>): StartedProcess['ended'] {
  return Promise.resolve(result).then((r) => ({
    how: r.signal ? `killed by ${r.signal}` : `exited with code ${r.exitCode}`,
    failure: r.failed && r.exitCode === undefined && !r.signal ? (r.message ?? 'no pid') : undefined,
  }));
}

/** A channel for a child that never started: nothing arrives, nothing can be sent. */
const CLOSED: IpcSubprocess = {
  getEachMessage: async function* () {},
  sendMessage: () => Promise.reject(new Error('the process never started')),
};

/**
 * A consumer someone else wrote, from its argv (no shell). Its IPC channel is
 * file descriptor 3, named by NODE_CHANNEL_FD with NODE_CHANNEL_SERIALIZATION_MODE
 * json: the variables Node itself sets for a child's IPC, so a Node program's
 * `process.send` speaks it, and any other program reads and writes JSON lines on
 * fd 3 (docs/CONSUMER.md). Nothing of the run's configuration goes in argv or
 * the environment. Its stdout goes to our stderr: our stdout is the report.
 */
export function startForeign(argv: string[]): StartedProcess {
  const [file = '', ...args] = argv;
  const subprocess = execa(file, args, {
    stdio: ['ignore', 2, 'inherit', 'pipe'],
    env: { NODE_CHANNEL_FD: '3', NODE_CHANNEL_SERIALIZATION_MODE: 'json' },
    buffer: false,
    reject: false,
    // Its own group, as ours: SIGSTOP, SIGCONT and SIGKILL reach everything it starts.
    detached: true,
  });
  const socket = subprocess.stdio[3];
  const ipc = socket instanceof Duplex ? new JsonLineChannel(socket) : CLOSED;
  return { pid: subprocess.pid, ended: endedOf(subprocess), ipc };
}
