import { events, QUICServer, type QUICConnection, type QUICStream } from '@matrixai/quic';
import type { Logger } from '../logger.js';
import { datagramConfig, quicLogger, serverCrypto } from './options.js';
import { connectionTransport, type ConnectionTransport } from './transport-stats.js';
import { listenPorts } from './listen-port.js';

export interface QuicServerOptions {
  host: string;
  /** 0 (or absent): any free port; a restarted broker binds its first start's, so clients find it again. */
  port?: number;
  certPem: string;
  keyPem: string;
  idleTimeoutMs: number;
  /** Per-stream receive window: what a client may send before the server reads. */
  streamWindowBytes: number;
  /** Largest UDP payload sent and accepted; the client must use the same (see datagramConfig). */
  datagramBytes: number;
  logger: Logger;
  /** `transport`: the stream's connection's QUIC counters, one object per connection (however many streams it opens).
   * */
  onStream: (stream: QUICStream, connection: QUICConnection, transport: ConnectionTransport) => void;
}

export interface QuicServerHandle {
  port: number;
  /** Forceful: open connections are cancelled, not waited for. */
  stop(): Promise<void>;
}

/** Starts a QUIC server on `port`, or on a free one below the ephemeral range (listen-port.ts). */
export async function startQuicServer(options: QuicServerOptions): Promise<QuicServerHandle> {
  if (options.port !== undefined && options.port !== 0) return listenOn(options, options.port);
  const ports = listenPorts();
  for (const [i, port] of ports.entries()) {
    try {
      return await listenOn(options, port);
    } catch (error) {
      if (i === ports.length - 1) throw error; // port 0 failed: nothing else to try
    }
  }
  throw new Error('unreachable: the last port tried is 0, whose failure is thrown');
}

async function listenOn(options: QuicServerOptions, port: number): Promise<QuicServerHandle> {
  const server = new QUICServer({
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
    const transport = connectionTransport(connection);
    connection.addEventListener(events.EventQUICConnectionStream.name, (streamEvt: Event) => {
      options.onStream((streamEvt as events.EventQUICConnectionStream).detail, connection, transport);
    });
  });
  await server.start({ host: options.host, port });
  return { port: server.port, stop: () => server.stop({ force: true }) };
}
