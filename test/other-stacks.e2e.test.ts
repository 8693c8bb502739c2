/**
 * What docs/CONSUMER.md's "Other QUIC stacks" says a client must set, tried on a
 * real broker with a bare QUIC client (@matrixai/quic, not our runtime's wrapper)
 * that gets one setting wrong at a time: the failure each gets is the one the
 * page promises.
 */
import { randomBytes } from 'node:crypto';
import { events, QUICClient } from '@matrixai/quic';
import Logger, { LogLevel } from '@matrixai/logger';
import { BROKER_HOST, encodeHello, Role, StartKind, TLS_SERVER_NAME } from '@state-divergence/protocol';
import { readFrames } from '@state-divergence/runtime/quic';
import { startBroker, type RealBroker } from './fixtures/real-broker.js';

let broker: RealBroker;
const clients: QUICClient[] = [];

beforeAll(async () => {
  // lossy: nothing is sent on an idle stream, so only the idle timeout closes one.
  broker = await startBroker({ mode: 'lossy', keys: 16 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.destroy({ force: true }).catch(() => {})));
  await broker?.process.stop();
});

/** The broker's endpoint as a client written from the init would dial it, with `changes` to the settings. */
async function dial(changes: { serverName?: string | null; config?: Record<string, unknown> }): Promise<QUICClient> {
  const serverName = changes.serverName === undefined ? TLS_SERVER_NAME : changes.serverName;
  const client = await QUICClient.createQUICClient({
    host: broker.endpoint.host,
    port: broker.endpoint.port,
    ...(serverName === null ? {} : { serverName }),
    crypto: { ops: { randomBytes: async (data: ArrayBuffer) => void randomBytes(data.byteLength).copy(Buffer.from(data)) } },
    config: { verifyPeer: true, ca: broker.endpoint.caPem, maxIdleTimeout: broker.endpoint.idleTimeoutMs, ...changes.config },
    logger: new Logger('quic', LogLevel.SILENT),
  });
  clients.push(client);
  return client;
}

/** How the handshake failed: the library's error name and the QUIC error code it carries. */
async function failure(changes: Parameters<typeof dial>[0]): Promise<{ name: string; errorCode: unknown }> {
  const error = (await dial(changes).then(() => new Error('the handshake succeeded'), (e: unknown) => e)) as Error & { data?: { errorCode?: unknown } };
  return { name: error.name, errorCode: error.data?.errorCode };
}

test('with server name localhost, the pinned CA and ALPN quic (the library default) the broker admits the client', async () => {
  const client = await dial({});
  const stream = client.connection.newStream('bidi');
  await stream.writable.getWriter().write(encodeHello({ role: Role.subscriber, name: 'other-stack', token: Buffer.from(broker.endpoint.token, 'hex'), start: StartKind.latest }));
  const first = await readFrames(stream.readable.getReader()).next();
  expect(first.value?.type).toBe('welcome');
});

// 0x100 + a TLS alert is QUIC's CRYPTO_ERROR: 42 bad_certificate, 120 no_application_protocol.
test('verifying the address dialled fails the handshake here: quiche (BoringSSL) matches no IP SAN, although the certificate has one', async () => {
  expect(await failure({ serverName: BROKER_HOST })).toEqual({ name: 'ErrorQUICConnectionLocalTLS', errorCode: 0x100 + 42 });
  expect(await failure({ serverName: null })).toEqual({ name: 'ErrorQUICConnectionLocalTLS', errorCode: 0x100 + 42 });
});

test('a server name the certificate does not carry fails the handshake', async () => {
  expect(await failure({ serverName: 'broker.example' })).toEqual({ name: 'ErrorQUICConnectionLocalTLS', errorCode: 0x100 + 42 });
});

test('an ALPN other than quic: the broker refuses the handshake with no_application_protocol', async () => {
  expect(await failure({ config: { applicationProtos: ['h3'] } })).toEqual({ name: 'ErrorQUICConnectionPeerTLS', errorCode: 0x100 + 120 });
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
