import { QUICClient } from '@matrixai/quic';
import {
  encodeHello,
  StartKind,
  type BrokerEndpoint,
  type ErrorFrame,
  type Frame,
  type Role,
  type WelcomeFrame,
} from '@state-divergence/protocol';
import { CodedError } from '../coded-error.js';
import { errorMessage } from '../error-message.js';
import { withDeadline } from '../deadline.js';
import { readFrames } from './frame-reader.js';
import type { Logger } from '../logger.js';
import { TLS_SERVER_NAME } from '@state-divergence/protocol';
import { clientCrypto, datagramConfig, quicLogger } from './options.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** What a client says in its HELLO. */
export interface Hello {
  role: Role;
  name: string;
  start?: StartKind;
  /** With start `offset`: the offset it already has. */
  startOffset?: number;
}

/** The broker answered HELLO with an ERROR (its `refusal`) instead of WELCOME: tooOld and inFuture carry an offset. */
export class BrokerRefusal extends CodedError {
  constructor(
    readonly refusal: ErrorFrame,
    name: string,
  ) {
    super('E_REFUSED', `the broker refused ${name}: ${refusal.message}`);
  }
}

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
export async function openBrokerStream(
  endpoint: BrokerEndpoint,
  logger: Logger,
  caPem: string = endpoint.caPem,
  timeoutMs = CONNECT_TIMEOUT_MS,
  streamWindowBytes = CLIENT_STREAM_WINDOW_BYTES,
): Promise<BrokerStream> {
  const { reader, write, close } = await openQuicStream(endpoint, logger, caPem, timeoutMs, streamWindowBytes);
  return { frames: readFrames(reader), write, close };
}

/**
 * A PING every third of the idle timeout, so that only a peer that cannot answer (frozen, cut off by
 * a partition, dead) lets a connection idle out, never a healthy one with nothing to say: lossy and
 * lossless send nothing when nothing is published, and a publisher whose publishing time is over
 * writes nothing (measured: with --idle-timeout 2 and one-second phases the publisher reconnected
 * three more times after publishing ended, one idle timeout apart). 0: no idle timeout, no PING.
 */
const keepAlive = (idleTimeoutMs: number) =>
  idleTimeoutMs > 0 ? { keepAliveIntervalTime: Math.floor(idleTimeoutMs / 3) } : {};

/**
 * What the broker may send on a client's stream before the client's first window update: 16 MiB
 * (the library's default is 1 MiB; quiche's auto-tuning cap is 16 MiB). quiche's first
 * MAX_STREAM_DATA reached the broker only once it had used the whole initial window: every
 * subscription's writes then stalled once, at 1,044,480 bytes, for 10-56 ms (measured at the
 * firehose, 20,000/s: the broker's blocked writes at that offset for all three subscribers at once,
 * and the healthy ones' only drops in 2 of 10 runs); with 4 MiB the stall came at 4 MiB and lasted
 * 11-14 ms. Later windows were never waited for. A frozen consumer still takes only what the
 * congestion window lets through (a few datagrams), and a client buffers only what it has not read
 * yet, so the broker's queue still decides when a stalled consumer starts missing events.
 */
export const CLIENT_STREAM_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * The transport under openBrokerStream, without framing (the benchmarks measure it bare).
 * The handshake is bounded by `timeoutMs` inside the library too (its timer cancels the
 * attempt and releases its socket), so an attempt at a broker that is down costs nothing after it.
 * `streamWindowBytes`: what the broker may send before this client reads (our clients use the
 * default; a test client that stops reading offers less, so the broker's writes to it block
 * after a few events instead of after the library's 10 MiB connection window).
 */
export async function openQuicStream(
  endpoint: BrokerEndpoint,
  logger: Logger,
  caPem: string = endpoint.caPem,
  timeoutMs = CONNECT_TIMEOUT_MS,
  streamWindowBytes = CLIENT_STREAM_WINDOW_BYTES,
): Promise<QuicByteStream> {
  const connecting = QUICClient.createQUICClient(
    {
      host: endpoint.host,
      port: endpoint.port,
      serverName: TLS_SERVER_NAME,
      crypto: clientCrypto(),
      config: {
        verifyPeer: true,
        ca: caPem,
        maxIdleTimeout: endpoint.idleTimeoutMs,
        initialMaxStreamDataBidiLocal: streamWindowBytes,
        ...keepAlive(endpoint.idleTimeoutMs),
        ...datagramConfig(endpoint.datagramBytes),
      },
      logger: quicLogger(logger),
    },
    { timer: timeoutMs },
  ).catch((error: unknown) => {
    // A certificate that does not match the pin fails the TLS handshake (E_TLS); anything else,
    // an unreachable broker included, is E_CONNECT: a caller can tell a rejected pin from no broker.
    const tls = error instanceof Error && /TLS$/.test(error.name);
    const timedOut = error instanceof Error && error.name === 'ErrorQUICClientCreateTimeout';
    const why = tls
      ? 'TLS handshake failed'
      : timedOut
        ? `no handshake within ${timeoutMs / 1000} s`
        : errorMessage(error);
    throw new CodedError(
      tls ? 'E_TLS' : 'E_CONNECT',
      `no QUIC connection to the broker at ${endpoint.host}:${endpoint.port}: ${why}`,
      { cause: error },
    );
  });
  // The library's timer rejects first; this deadline is only a backstop.
  const client = await withDeadline(
    connecting,
    timeoutMs + 1_000,
    `no QUIC handshake with the broker at ${endpoint.host}:${endpoint.port} within ${timeoutMs / 1000} s`,
  );
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

/** The broker learns of the stream only when bytes arrive, so the client speaks first; the broker's first frame
 * answers. */
async function sayHello(
  frames: AsyncGenerator<Frame>,
  write: (bytes: Uint8Array) => Promise<void>,
  endpoint: BrokerEndpoint,
  hello: Hello,
  timeoutMs: number,
) {
  const token = Buffer.from(endpoint.token, 'hex');
  await write(
    encodeHello({
      role: hello.role,
      name: hello.name,
      token,
      start: hello.start ?? StartKind.latest,
      startOffset: hello.startOffset ?? 0,
    }),
  );
  return withDeadline(frames.next(), timeoutMs, 'the broker sent no WELCOME after hello');
}

/**
 * Connects (see openBrokerStream) and says hello with the run's token.
 * Resolves once the broker has admitted the client with a WELCOME; an ERROR
 * instead is a BrokerRefusal. `timeoutMs` bounds the handshake and, again, the
 * wait for WELCOME (a reconnecting client keeps each attempt short).
 */
export async function connectToBroker(
  endpoint: BrokerEndpoint,
  hello: Hello,
  logger: Logger,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<BrokerSession> {
  const { frames, write, close } = await openBrokerStream(endpoint, logger, endpoint.caPem, timeoutMs);
  const first = await sayHello(frames, write, endpoint, hello, timeoutMs).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  if (first.done || first.value.type !== 'welcome') {
    await close();
    if (!first.done && first.value.type === 'error') throw new BrokerRefusal(first.value, hello.name);
    throw new CodedError(
      'E_REFUSED',
      `the broker refused ${hello.name}: ${first.done ? 'the stream ended' : first.value.type}`,
    );
  }
  return { welcome: first.value, frames, write, close };
}
