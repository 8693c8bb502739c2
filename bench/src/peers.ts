import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import { withDeadline } from '@state-divergence/runtime';
import type { PeerCommand, PeerInit, PeerMessage } from './raw-peer.js';

const PEER = fileURLToPath(new URL('./raw-peer.js', import.meta.url));
/** Generous: a ping run of 2000 round trips takes a few seconds on a busy machine. */
const REPLY_TIMEOUT_MS = 60_000;

export interface Peer {
  port: number | undefined;
  start(): void;
  count(): Promise<number>;
  pings(): Promise<number[]>;
  stop(): Promise<void>;
}

/** Starts one raw peer process and waits until it is ready. */
export async function spawnPeer(init: PeerInit): Promise<Peer> {
  const child = execaNode(PEER, [], {
    ipcInput: { ...init },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
    reject: false,
  });
  const waiters: Array<(m: PeerMessage) => boolean> = [];
  void (async () => {
    for await (const raw of child.getEachMessage()) {
      const message = raw as unknown as PeerMessage;
      const index = waiters.findIndex((w) => w(message));
      if (index >= 0) waiters.splice(index, 1);
    }
  })().catch(() => {});
  const next = <T extends PeerMessage['type']>(type: T) =>
    withDeadline(
      new Promise<Extract<PeerMessage, { type: T }>>((resolve, reject) => {
        waiters.push((m) => (m.type === type ? (resolve(m as Extract<PeerMessage, { type: T }>), true) : false));
        void child.then(() => reject(new Error(`bench peer ${init.kind} exited while waiting for ${type}`)));
      }),
      REPLY_TIMEOUT_MS,
      `bench peer ${init.kind} sent no ${type} within ${REPLY_TIMEOUT_MS / 1000} s`,
    );
  const command = (c: PeerCommand) => void child.sendMessage(c as never).catch(() => {});
  const ready = await next('ready');
  return {
    port: ready.port,
    start: () => command({ type: 'start' }),
    count: async () => {
      const reply = next('count');
      command({ type: 'count' });
      return (await reply).frames;
    },
    pings: async () => (await next('pings')).rttMs,
    stop: async () => {
      command({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await child;
      clearTimeout(timer);
    },
  };
}
