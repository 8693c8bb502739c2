/**
 * What docs/CONSUMER.md's "Other QUIC stacks" says a client must set, tried on a
 * real broker with a bare QUIC client (@matrixai/quic, not our runtime's wrapper)
 * that gets one setting wrong at a time: the failure each gets is the one the
 * page promises.
 */
import { randomBytes } from 'node:crypto';
import { events, QUICClient } from '@matrixai/quic';
import Logger, { LogLevel } from '@matrixai/logger';
import {
  BROKER_HOST,
  encodeHello,
  encodePublish,
  Role,
  StartKind,
  TLS_SERVER_NAME,
  type Frame,
} from '@state-divergence/protocol';
import { generateRunCertificate } from '@state-divergence/orchestrator';
import { readFrames } from '@state-divergence/runtime/quic';
import { startBroker, type RealBroker } from './fixtures/real-broker.js';
import { startUdpRelay } from './fixtures/udp-relay.js';

/** The broker's `--datagram-size`: larger than a 1,500-byte stack can take (loopback only). */
const BROKER_DATAGRAM_BYTES = 16_384;

let broker: RealBroker;
const clients: QUICClient[] = [];

beforeAll(async () => {
  // lossy: nothing is sent on an idle stream, so only the idle timeout closes one.
  broker = await startBroker({ mode: 'lossy', keys: 16, datagramSize: BROKER_DATAGRAM_BYTES });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.destroy({ force: true }).catch(() => {})));
  await broker?.process.stop();
});

/** The broker's endpoint as a client written from the init would dial it, with `changes` to the settings. */
async function dial(changes: {
  serverName?: string | null;
  config?: Record<string, unknown>;
  port?: number;
}): Promise<QUICClient> {
  const serverName = changes.serverName === undefined ? TLS_SERVER_NAME : changes.serverName;
  const client = await QUICClient.createQUICClient({
    host: broker.endpoint.host,
    port: changes.port ?? broker.endpoint.port,
    ...(serverName === null ? {} : { serverName }),
    crypto: {
      ops: { randomBytes: async (data: ArrayBuffer) => void randomBytes(data.byteLength).copy(Buffer.from(data)) },
    },
    config: {
      verifyPeer: true,
      ca: broker.endpoint.caPem,
      maxIdleTimeout: broker.endpoint.idleTimeoutMs,
      ...changes.config,
    },
    logger: new Logger('quic', LogLevel.SILENT),
  });
  clients.push(client);
  return client;
}

/** How the handshake failed: the library's error name and the QUIC error code it carries. */
async function failure(changes: Parameters<typeof dial>[0]): Promise<{ name: string; errorCode: unknown }> {
  const error = (await dial(changes).then(
    () => new Error('the handshake succeeded'),
    (e: unknown) => e,
  )) as Error & { data?: { errorCode?: unknown } };
  return { name: error.name, errorCode: error.data?.errorCode };
}

/** Subscribes at latest on `client`'s connection; the frames it then receives. */
async function subscribe(client: QUICClient, name: string): Promise<AsyncGenerator<Frame>> {
  const stream = client.connection.newStream('bidi');
  await stream.writable.getWriter().write(
    encodeHello({
      role: Role.subscriber,
      name,
      token: Buffer.from(broker.endpoint.token, 'hex'),
      start: StartKind.latest,
    }),
  );
  const frames = readFrames(stream.readable.getReader());
  expect((await frames.next()).value?.type).toBe('welcome');
  return frames;
}

test('with server name localhost, the pinned CA and ALPN quic (the library default) the broker admits the client', async () => {
  await subscribe(await dial({}), 'other-stack');
});

test("the broker's datagrams never exceed the receive limit a client advertises (max_udp_payload_size), whatever --datagram-size says", async () => {
  const limits = [1_500, BROKER_DATAGRAM_BYTES];
  const relays = await Promise.all(limits.map(() => startUdpRelay(broker.endpoint.port)));
  try {
    const subscribers = await Promise.all(
      limits.map(async (bytes, i) =>
        subscribe(
          await dial({ port: relays[i]!.port, config: { maxRecvUdpPayloadSize: bytes, maxSendUdpPayloadSize: bytes } }),
          `datagrams-${bytes}`,
        ),
      ),
    );
    const publisher = await broker.connect();
    await publisher.write(
      encodeHello({ role: Role.publisher, name: 'publisher', token: Buffer.from(broker.endpoint.token, 'hex') }),
    );
    expect((await publisher.next('WELCOME'))?.type).toBe('welcome');
    // One EVENT of ~12 KB: one datagram at 16,384, nine or more at 1,500.
    await publisher.write(
      encodePublish({ key: 1, version: 1, value: 7, deleted: false, publishedAt: Date.now(), payloadLength: 12_000 }),
    );
    for (const frames of subscribers) expect((await frames.next()).value?.type).toBe('event');
    await publisher.close();
    const [small, large] = relays.map((r) => Math.max(...r.fromBroker));
    expect(small).toBeLessThanOrEqual(1_500);
    expect(large).toBeGreaterThan(1_500);
    expect(large).toBeLessThanOrEqual(BROKER_DATAGRAM_BYTES);
  } finally {
    relays.forEach((r) => r.close());
  }
});

// 0x100 + a TLS alert is QUIC's CRYPTO_ERROR: 42 bad_certificate, 48 unknown_ca, 120 no_application_protocol.
test('verifying the address dialled fails the handshake here: quiche (BoringSSL) matches no IP SAN, although the certificate has one', async () => {
  expect(await failure({ serverName: BROKER_HOST })).toEqual({
    name: 'ErrorQUICConnectionLocalTLS',
    errorCode: 0x100 + 42,
  });
  expect(await failure({ serverName: null })).toEqual({ name: 'ErrorQUICConnectionLocalTLS', errorCode: 0x100 + 42 });
});

test("a server name the certificate does not carry, or a CA other than the init's, fails the handshake", async () => {
  expect(await failure({ serverName: 'broker.example' })).toEqual({
    name: 'ErrorQUICConnectionLocalTLS',
    errorCode: 0x100 + 42,
  });
  const decoy = await generateRunCertificate();
  expect(await failure({ config: { ca: decoy.certPem } })).toEqual({
    name: 'ErrorQUICConnectionLocalTLS',
    errorCode: 0x100 + 48,
  });
});

test('an ALPN other than quic: the broker refuses the handshake with no_application_protocol', async () => {
  expect(await failure({ config: { applicationProtos: ['h3'] } })).toEqual({
    name: 'ErrorQUICConnectionPeerTLS',
    errorCode: 0x100 + 120,
  });
});

test("an idle timeout shorter than the init's closes the connection at the client's own timeout: the smaller of the two wins", async () => {
  const client = await dial({ config: { maxIdleTimeout: 500 } });
  const opened = performance.now();
  const closed = await new Promise<{ name: string | undefined; ms: number }>((resolve) => {
    client.connection.addEventListener(events.EventQUICConnectionClose.name, (evt: Event) => {
      resolve({ name: (evt as events.EventQUICConnectionClose).detail?.name, ms: performance.now() - opened });
    });
  });
  expect(closed.name).toBe('ErrorQUICConnectionIdleTimeout');
  expect(closed.ms).toBeGreaterThanOrEqual(400);
  expect(closed.ms).toBeLessThan(broker.endpoint.idleTimeoutMs);
});
