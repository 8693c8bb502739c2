/**
 * A bare peer for measuring the stack itself, with no demo logic: 64-byte
 * length-prefixed frames over one QUIC stream (the demo's own QUIC set-up,
 * runtime/quic-*.ts) or over loopback TCP (node:net). One process per peer,
 * driven over IPC like the demo's children.
 *
 *   quic-sink / tcp-sink       count frames received
 *   quic-source / tcp-source   write batches of `batch` frames as fast as writes complete
 *   quic-fanout                a server writing batches to every client stream
 *   quic-fanout-client         connects, says one byte, counts frames received
 *   quic-echo / quic-ping      ping-pong round trips of one frame
 */
import net from 'node:net';
import { getEachMessage, getOneMessage, sendMessage } from 'execa';
import { createLogger, exitFlushed } from '@state-divergence/runtime';
import { openQuicStream, startQuicServer, type QuicByteStream } from '@state-divergence/runtime/quic';

export const FRAME_BYTES = 64;

export interface PeerInit {
  kind:
    | 'quic-sink'
    | 'tcp-sink'
    | 'quic-source'
    | 'tcp-source'
    | 'quic-fanout'
    | 'quic-fanout-client'
    | 'quic-echo'
    | 'quic-ping';
  batch: number;
  /** Largest QUIC datagram, both ends (the demo's --datagram-size). */
  datagramBytes: number;
  port?: number;
  certPem: string;
  keyPem: string;
  pings?: number;
}

export type PeerCommand = { type: 'start' } | { type: 'count' } | { type: 'stop' };
export type PeerMessage =
  { type: 'ready'; port?: number } | { type: 'count'; frames: number } | { type: 'pings'; rttMs: number[] };

const init = (await getOneMessage()) as unknown as PeerInit;
const logger = createLogger(`bench-${init.kind}`, { level: 'warn', file: null, mode: null });
const endpoint = {
  host: '127.0.0.1',
  port: init.port ?? 0,
  caPem: init.certPem,
  idleTimeoutMs: 60_000,
  datagramBytes: init.datagramBytes,
  token: '',
};
const frame = (): Buffer => {
  const buf = Buffer.alloc(FRAME_BYTES, 0xab);
  buf.writeUInt32BE(FRAME_BYTES - 4, 0);
  return buf;
};
const batchBytes = Buffer.concat(Array.from({ length: init.batch }, frame));
let receivedBytes = 0;
let running = false;
const send = (message: PeerMessage) => void sendMessage(message).catch(() => {});

/** Writes `batchBytes` back to back while running; each write awaited, as the broker's writer does. */
async function pump(write: (bytes: Buffer) => Promise<unknown>): Promise<void> {
  while (running) await write(batchBytes);
}

async function setUp(): Promise<{ port?: number; start?: () => void }> {
  const server = {
    host: '127.0.0.1',
    certPem: init.certPem,
    keyPem: init.keyPem,
    idleTimeoutMs: 60_000,
    streamWindowBytes: 1024 * 1024,
    datagramBytes: init.datagramBytes,
    logger,
  };
  switch (init.kind) {
    case 'quic-sink': {
      const quic = await startQuicServer({
        ...server,
        onStream: (stream) => void drainStream(stream.readable.getReader()),
      });
      return { port: quic.port };
    }
    case 'quic-echo': {
      const quic = await startQuicServer({
        ...server,
        onStream: (stream) => {
          const writer = stream.writable.getWriter();
          void (async () => {
            const reader = stream.readable.getReader();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) return;
              await writer.write(value);
            }
          })().catch(() => {});
        },
      });
      return { port: quic.port };
    }
    case 'quic-fanout': {
      const quic = await startQuicServer({
        ...server,
        onStream: (stream) => {
          const writer = stream.writable.getWriter();
          running = true;
          void pump((bytes) => writer.write(bytes)).catch(() => {});
        },
      });
      return { port: quic.port };
    }
    case 'tcp-sink': {
      const tcp = net.createServer((socket) => socket.on('data', (chunk: Buffer) => (receivedBytes += chunk.length)));
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      return { port: (tcp.address() as net.AddressInfo).port };
    }
    case 'tcp-source': {
      const socket = net.connect(init.port!, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const write = (bytes: Buffer) =>
        new Promise<void>((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve())));
      return { start: () => void pump(write).catch(() => {}) };
    }
    case 'quic-source': {
      const stream = await openQuicStream(endpoint, logger);
      return { start: () => void pump((bytes) => stream.write(bytes)).catch(() => {}) };
    }
    case 'quic-fanout-client': {
      const stream = await openQuicStream(endpoint, logger);
      await stream.write(Buffer.from([1]));
      void drainStream(stream.reader);
      return {};
    }
    case 'quic-ping': {
      const stream = await openQuicStream(endpoint, logger);
      return { start: () => void ping(stream).catch(() => {}) };
    }
  }
}

async function drainStream(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done) return;
    receivedBytes += value.length;
  }
}

/** One frame out, wait until all of it is back, repeat: round-trip samples. */
async function ping(stream: QuicByteStream): Promise<void> {
  const rttMs: number[] = [];
  const one = frame();
  for (let i = 0; i < (init.pings ?? 1000); i++) {
    const sent = performance.now();
    await stream.write(one);
    let back = 0;
    while (back < FRAME_BYTES) {
      const { value, done } = await stream.reader.read();
      if (done) throw new Error('echo closed');
      back += value.length;
    }
    rttMs.push(performance.now() - sent);
  }
  send({ type: 'pings', rttMs });
}

const peer = await setUp();
send(peer.port === undefined ? { type: 'ready' } : { type: 'ready', port: peer.port });
for await (const raw of getEachMessage()) {
  const command = raw as unknown as PeerCommand;
  if (command.type === 'start') {
    running = true;
    peer.start?.();
  } else if (command.type === 'count') send({ type: 'count', frames: Math.floor(receivedBytes / FRAME_BYTES) });
  else await exitFlushed(0, 'raw-peer');
}
