/**
 * The relay's TCP mode, in this process over loopback (no child process): one upstream connection
 * per client connection, both ways piped in order; a partition holds both ways with both
 * connections open and forwards what it held, in order, at the heal; a delay holds each chunk and
 * keeps the order; a reset destroys both sides (the client sees ECONNRESET, the server a close)
 * and the client's next connection is carried as the first was.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { CLEAR_LINK, PARTITIONED_LINK, type RelayInit } from '@state-divergence/protocol';
import { TcpRelay } from '@state-divergence/relay/internal';
import { createLogger, sleep } from '@state-divergence/runtime';

const HOST = '127.0.0.1';
const servers: Server[] = [];
const sockets: Socket[] = [];
let relay: TcpRelay | undefined;

afterEach(() => {
  relay?.close();
  relay = undefined;
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

/** A server that echoes every byte back on the connection it came on, keeping each of its sockets. */
async function echoServer(): Promise<{ port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    sockets.push(socket);
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, accepted };
}

async function openRelay(upstreamPort: number): Promise<TcpRelay> {
  const init: RelayInit = {
    role: 'relay',
    name: 'relay-c',
    client: 'c',
    upstream: { host: HOST, port: upstreamPort },
    transport: 'tcp',
    datagramBytes: 1350,
    seed: 1,
    log: { level: 'silent', file: null, mode: null },
  };
  relay = await TcpRelay.open(init, createLogger('relay-c', init.log));
  return relay;
}

/** A client connected through the relay, with everything it has received so far. */
async function client(): Promise<{ socket: Socket; received: () => string; errors: string[] }> {
  const socket = createConnection({ host: HOST, port: relay!.port });
  sockets.push(socket);
  const chunks: Buffer[] = [];
  const errors: string[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, received: () => Buffer.concat(chunks).toString(), errors };
}

/** Resolves once `check` holds, polled every 10 ms; fails after 3 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within 3 s: ${what}`);
    await sleep(10);
  }
}

const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `<${from + i}>`).join('');

test('each client connection gets its own upstream connection, its bytes echoed back in order', async () => {
  const echo = await echoServer();
  await openRelay(echo.port);
  const [a, b] = [await client(), await client()];
  a.socket.write(numbered(0, 500));
  b.socket.write('b-only');
  await until(() => a.received() === numbered(0, 500) && b.received() === 'b-only', 'both echoes');
  expect(echo.accepted).toHaveLength(2);
  expect(relay!.counters().stream).toMatchObject({ accepted: 2, open: 2, heldBytes: { up: 0, down: 0 } });
  expect(relay!.counters().up.bytes).toBe(numbered(0, 500).length + 'b-only'.length);
});

test('a partition holds both ways with the connections open; the heal forwards what was held, in order', async () => {
  const echo = await echoServer();
  await openRelay(echo.port);
  const a = await client();
  a.socket.write(numbered(0, 10));
  await until(() => a.received() === numbered(0, 10), 'the echo before the partition');
  relay!.shape(PARTITIONED_LINK, PARTITIONED_LINK);
  a.socket.write(numbered(10, 20));
  a.socket.write(numbered(20, 30));
  await sleep(150);
  // Nothing crossed: the server saw nothing more, so nothing came back; the relay holds it (client to server).
  expect(a.received()).toBe(numbered(0, 10));
  expect(relay!.counters().stream!.heldBytes.up).toBe(numbered(10, 30).length);
  expect(relay!.openConnections).toBe(1);
  expect(a.errors).toEqual([]);
  relay!.shape(CLEAR_LINK, CLEAR_LINK);
  await until(() => a.received() === numbered(0, 30), 'the held bytes, echoed after the heal');
  const stream = relay!.counters().stream!;
  expect(stream.heals).toEqual([{ up: numbered(10, 30).length, down: 0 }]);
  expect(stream.heldBytes).toEqual({ up: 0, down: 0 });
  expect(stream.accepted).toBe(1);
});

test('bytes the server sends during a partition pile up in the relay (the way down) and arrive in order at the heal', async () => {
  const echo = await echoServer();
  await openRelay(echo.port);
  const a = await client();
  await until(() => echo.accepted.length === 1, 'the upstream connection');
  relay!.shape(PARTITIONED_LINK, PARTITIONED_LINK);
  const server = echo.accepted[0]!;
  for (let i = 0; i < 20; i++) server.write(numbered(i * 50, (i + 1) * 50));
  await until(() => relay!.counters().stream!.heldBytes.down === numbered(0, 1000).length, 'all held');
  expect(a.received()).toBe('');
  relay!.shape(CLEAR_LINK, CLEAR_LINK);
  await until(() => a.received() === numbered(0, 1000), 'the server bytes after the heal');
  expect(relay!.counters().stream!.heals).toEqual([{ up: 0, down: numbered(0, 1000).length }]);
});

test('a delay with jitter holds each chunk yet keeps the byte order', async () => {
  const echo = await echoServer();
  await openRelay(echo.port);
  const a = await client();
  const shape = { ...CLEAR_LINK, delayMs: 40, jitterMs: 30 };
  relay!.shape(shape, shape);
  const started = performance.now();
  for (let i = 0; i < 30; i++) {
    a.socket.write(numbered(i * 10, (i + 1) * 10));
    await sleep(2);
  }
  await until(() => a.received().length === numbered(0, 300).length, 'every delayed echo');
  expect(a.received()).toBe(numbered(0, 300));
  // Each byte crossed the relay twice (up, then down), each time held at least delay - jitter.
  expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 10);
  expect(relay!.counters().up.maxHeld).toBeGreaterThan(0);
});

test('a reset destroys both sides at once; the client reconnects through the relay as before', async () => {
  const echo = await echoServer();
  await openRelay(echo.port);
  const a = await client();
  a.socket.write('before');
  await until(() => a.received() === 'before', 'the first echo');
  // Held bytes at the reset are discarded, never forwarded.
  relay!.shape(PARTITIONED_LINK, PARTITIONED_LINK);
  a.socket.write('held');
  await until(() => relay!.counters().stream!.heldBytes.up === 4, 'held');
  const serverSide = echo.accepted[0]!;
  const serverClosed = new Promise<void>((resolve) => serverSide.once('close', () => resolve()));
  relay!.reset();
  await until(() => a.errors.includes('ECONNRESET'), "the client's reset");
  await serverClosed;
  const stream = relay!.counters().stream!;
  expect(stream).toMatchObject({ resetConnections: 1, discardedBytes: 4, open: 0 });
  relay!.shape(CLEAR_LINK, CLEAR_LINK);
  const b = await client();
  b.socket.write('after');
  await until(() => b.received() === 'after', 'the echo on the new connection');
  expect(relay!.counters().stream!.accepted).toBe(2);
});
