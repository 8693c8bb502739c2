import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import type { ProbeCommand, ProbeMessage, ProbeReport } from './probe-protocol.js';
import { signalGroup, track, untrack } from './reaper.js';
import { settledWithin } from './settled-within.js';
import type { Endpoint, IdiomName, Versioned } from './target-system.js';

export type { ProbeReport } from './probe-protocol.js';

const ENTRY = fileURLToPath(new URL('./probe-consumer.js', import.meta.url));
const STOP_GRACE_MS = 2_000;

/** A probe consumer process (probe-consumer.ts) as its parent drives it. */
export interface Probe {
  readonly pid: number;
  /** SIGSTOP to its process group: it reads nothing until thawed. */
  freeze(): void;
  thaw(): void;
  /** Its copy and signals now (it must not be frozen: a frozen process answers nothing). */
  report(): Promise<ProbeReport & { copy: Map<string, Versioned> }>;
  stop(): Promise<void>;
  /** SIGKILL to its process group (the crash fault): its copy and connections die with it. */
  kill(): Promise<void>;
}

/** Starts a probe running `idiom` of `system` at `endpoint`; resolves once it is consuming. */
export async function startProbe(system: string, idiom: IdiomName, endpoint: Endpoint, prefix: string): Promise<Probe> {
  const child = execaNode(ENTRY, [], {
    ipc: true,
    stdin: 'ignore',
    stdout: 'inherit',
    stderr: 'inherit',
    detached: true,
    reject: false,
    buffer: false,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`the ${system} ${idiom} probe did not start: ${(await child).message}`);
  track(pid);
  void child.then(() => untrack(pid));
  const send = (command: ProbeCommand) => child.sendMessage(command);
  const next = (type: ProbeMessage['type'] | 'failed') =>
    child.getOneMessage({
      filter: (m) => (m as ProbeMessage).type === type || (m as ProbeMessage).type === 'failed',
    }) as Promise<ProbeMessage>;

  const started = next('started');
  await send({ type: 'start', system, idiom, endpoint, prefix });
  const answer = await started;
  if (answer.type === 'failed') {
    signalGroup(pid, 'SIGKILL');
    throw new Error(`the ${system} ${idiom} probe failed to start: ${answer.message}`);
  }
  return {
    pid,
    freeze: () => signalGroup(pid, 'SIGSTOP'),
    thaw: () => signalGroup(pid, 'SIGCONT'),
    report: async () => {
      const reply = next('report');
      await send({ type: 'report' });
      const message = await reply;
      if (message.type !== 'report') throw new Error(`the probe did not report: ${JSON.stringify(message)}`);
      return {
        ...message,
        copy: new Map(message.entries.map(([key, value, seq]) => [key, { value, seq }])),
      };
    },
    stop: async () => {
      signalGroup(pid, 'SIGCONT');
      await send({ type: 'stop' }).catch(() => {});
      const ended = await settledWithin(child, STOP_GRACE_MS);
      if (!ended) {
        signalGroup(pid, 'SIGKILL');
        await child;
      }
    },
    kill: async () => {
      signalGroup(pid, 'SIGKILL');
      await child;
    },
  };
}
