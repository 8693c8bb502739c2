import { events, QUICServer, type QUICConnection, type QUICStream } from '@matrixai/quic';
import type { Logger } from '../logger.js';
import { datagramConfig, quicLogger, serverCrypto } from './options.js';
import { startTunedSocket, type TunedSocket } from './socket.js';

export interface QuicServerOptions {
  host: string;
  certPem: string;
  keyPem: string;
  idleTimeoutMs: number;
  /** Per-stream receive window: what a client may send before the server reads. */
  streamWindowBytes: number;
  /** Largest UDP payload sent and accepted; the client must use the same (see datagramConfig). */
  datagramBytes: number;
  logger: Logger;
  onStream: (stream: QUICStream, connection: QUICConnection) => void;
}

export interface QuicServerHandle {
  port: number;
  /** The UDP socket's receive buffer as the kernel granted it (Linux reports twice the usable size). */
  receiveBufferBytes: number;
  /** Forceful: open connections are cancelled, not waited for. */
  stop(): Promise<void>;
}

/** Starts a QUIC server on an ephemeral port of a tuned socket (socket.ts). */
export async function startQuicServer(options: QuicServerOptions): Promise<QuicServerHandle> {
  const socket = await startTunedSocket(options.host, options.logger);
  try {
    return await serveOn(socket, options);
  } catch (error) {
    await socket.stop({ force: true }).catch(() => {});
    throw error;
  }
}

async function serveOn(socket: TunedSocket, options: QuicServerOptions): Promise<QuicServerHandle> {
  const server = new QUICServer({
    socket,
    crypto: serverCrypto(),
    config: {
      key: options.keyPem,
      cert: options.certPem,
      verifyPeer: false,
      maxIdleTimeout: options.idleTimeoutMs,
      // Small, fixed windows: when the broker stops reading (lossless), the
      // publisher must feel it within a few hundred events, not after megabytes.
      initialMaxStreamDataBidiRemote: options.streamWindowBytes,
      maxStreamWindow: options.streamWindowBytes,
      ...datagramConfig(options.datagramBytes),
    },
    logger: quicLogger(options.logger),
  });
  server.addEventListener(events.EventQUICServerConnection.name, (evt: Event) => {
    const connection = (evt as events.EventQUICServerConnection).detail;
    connection.addEventListener(events.EventQUICConnectionStream.name, (streamEvt: Event) => {
      options.onStream((streamEvt as events.EventQUICConnectionStream).detail, connection);
    });
  });
  await server.start();
  return {
    port: socket.port,
    receiveBufferBytes: socket.receiveBufferBytes,
    stop: () => stopBoth(server, socket),
  };
}

async function stopBoth(server: QUICServer, socket: TunedSocket): Promise<void> {
  try {
    await server.stop({ force: true });
  } finally {
    await socket.stop({ force: true });
  }
}
