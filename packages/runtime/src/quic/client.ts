import { QUICClient } from '@matrixai/quic';
import { encodeHello, StartKind, type BrokerEndpoint, type Frame, type Role, type WelcomeFrame } from '@state-divergence/protocol';
import { CodedError } from '../coded-error.js';
import { errorMessage } from '../error-message.js';
import { withDeadline } from '../deadline.js';
import { readFrames } from './frame-reader.js';
import type { Logger } from '../logger.js';
import { TLS_SERVER_NAME } from '@state-divergence/protocol';
import { clientCrypto, datagramConfig, quicLogger } from './options.js';

const CONNECT_TIMEOUT_MS = 10_000;

export interface BrokerSession extends BrokerStream {
  welcome: WelcomeFrame;
}

/** A verified QUIC connection to the broker with its one stream open, before any frame. */
export interface BrokerStream {
  frames: AsyncGenerator<Frame>;
  write(bytes: Uint8Array): Promise<void>;
  /** Forceful close: never waits out QUIC's closing period (seconds after a stall). */
  close(): Promise<void>;
}

/** A verified QUIC connection with one bidirectional stream, as raw bytes. */
export interface QuicByteStream {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects to the broker, verifying its certificate by pinning `caPem` (the
 * per-run certificate) and checking it was issued to TLS_SERVER_NAME (BoringSSL
 * does not match IP SANs), and opens the one bidirectional stream.
 */
export async function openBrokerStream(endpoint: BrokerEndpoint, logger: Logger, caPem: string = endpoint.caPem): Promise<BrokerStream> {
  const { reader, write, close } = await openQuicStream(endpoint, logger, caPem);
  return { frames: readFrames(reader), write, close };
}

/** The transport under openBrokerStream, without framing (the benchmarks measure it bare). */
export async function openQuicStream(endpoint: BrokerEndpoint, logger: Logger, caPem: string = endpoint.caPem): Promise<QuicByteStream> {
  const connecting = QUICClient.createQUICClient({
    host: endpoint.host,
    port: endpoint.port,
    serverName: TLS_SERVER_NAME,
    crypto: clientCrypto(),
    config: { verifyPeer: true, ca: caPem, maxIdleTimeout: endpoint.idleTimeoutMs, ...datagramConfig(endpoint.datagramBytes) },
    logger: quicLogger(logger),
  }).catch((error: unknown) => {
    // A certificate that does not match the pin fails the TLS handshake (E_TLS); anything else,
    // an unreachable broker included, is E_CONNECT: a caller can tell a rejected pin from no broker.
    const tls = error instanceof Error && /TLS$/.test(error.name);
    throw new CodedError(tls ? 'E_TLS' : 'E_CONNECT', `no QUIC connection to the broker at ${endpoint.host}:${endpoint.port}: ${tls ? 'TLS handshake failed' : errorMessage(error)}`, { cause: error });
  });
  const client = await withDeadline(connecting, CONNECT_TIMEOUT_MS, `no QUIC handshake with the broker at ${endpoint.host}:${endpoint.port} within ${CONNECT_TIMEOUT_MS / 1000} s`);
  const stream = client.connection.newStream('bidi');
  const writer = stream.writable.getWriter();
  return {
    reader: stream.readable.getReader(),
    write: (bytes) => writer.write(bytes),
    close: async () => {
      await client.destroy({ force: true }).catch(() => {});
    },
  };
}

/** The broker learns of the stream only when bytes arrive, so the client speaks first; the broker's first frame answers. */
async function sayHello(frames: AsyncGenerator<Frame>, write: (bytes: Uint8Array) => Promise<void>, endpoint: BrokerEndpoint, hello: { role: Role; name: string; start?: StartKind }) {
  await write(encodeHello({ role: hello.role, name: hello.name, token: Buffer.from(endpoint.token, 'hex'), start: hello.start ?? StartKind.latest }));
  return withDeadline(frames.next(), CONNECT_TIMEOUT_MS, 'the broker sent no WELCOME after hello');
}

/**
 * Connects (see openBrokerStream) and says hello with the run's token.
 * Resolves once the broker has admitted the client with a WELCOME.
 */
export async function connectToBroker(
  endpoint: BrokerEndpoint,
  hello: { role: Role; name: string; start?: StartKind },
  logger: Logger,
): Promise<BrokerSession> {
  const { frames, write, close } = await openBrokerStream(endpoint, logger);
  const first = await sayHello(frames, write, endpoint, hello).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  if (first.done || first.value.type !== 'welcome') {
    const detail = first.done ? 'the stream ended' : first.value.type === 'error' ? first.value.message : first.value.type;
    await close();
    throw new CodedError('E_REFUSED', `the broker refused ${hello.name}: ${detail}`);
  }
  return { welcome: first.value, frames, write, close };
}
