import { createConnection } from 'node:net';
import { Redis, type ChainableCommander, type RedisOptions } from 'ioredis';
import { PUBSUB_LIMIT_KNOB } from '../redis-pubsub/knobs.js';
import type { Endpoint, KnobValues, RemoteRecipe, ServerCounters, ServerRecipe } from '../target-system.js';

/** One PING over a raw socket: no client library's retry loop hides a server that is not up. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * redis-server with no persistence (no RDB snapshots, no AOF): the seed's reference set-up, so a
 * restart comes back empty. The pub/sub limit goes on the command line when the system has it.
 */
export const redisServer: ServerRecipe = {
  binary: 'redis-server',
  ports: 1,
  argv: (ports, dataDir, knobs: KnobValues) => [
    '--port',
    String(ports[0]),
    '--bind',
    '127.0.0.1',
    '--dir',
    dataDir,
    '--save',
    '',
    '--appendonly',
    'no',
    ...(knobs[PUBSUB_LIMIT_KNOB] === undefined
      ? []
      : ['--client-output-buffer-limit', `pubsub ${knobs[PUBSUB_LIMIT_KNOB]}`]),
  ],
  endpoint: (ports): Endpoint => ({ url: `redis://127.0.0.1:${ports[0]}`, port: ports[0] ?? 0 }),
  ready: (endpoint) => ping(endpoint.port),
  persists: 'nothing: no RDB snapshot, no AOF; a restarted server comes back empty',
};

/** A Redis someone runs: `redis://` or `rediss://` (TLS), the path its database (`/2`). */
export const redisRemote: RemoteRecipe = {
  schemes: ['redis:', 'rediss:'],
  tlsSchemes: ['rediss:'],
  defaultPort: 6379,
  path: /^\/\d*$/,
  takes: ['username', 'password', 'tls'],
};

/**
 * A client of the endpoint, as ioredis takes credentials: `username` (an ACL user) and
 * `password` (AUTH), `tls` (node's TLS options; `rediss://` alone means TLS with the system's
 * roots). `options` are the caller's own.
 */
export function redisAt(endpoint: Endpoint, options: RedisOptions): Redis {
  const { username, password, tls } = endpoint.credentials ?? {};
  const given: RedisOptions = { ...options };
  if (username !== undefined) given.username = username;
  if (password !== undefined) given.password = password;
  if (tls !== undefined) given.tls = { ...tls };
  return new Redis(endpoint.url, given);
}

/**
 * A client that gives up at once instead of queueing commands while it reconnects (ioredis's
 * default queues them without bound): the harness's own short-lived connections.
 */
export function redisClient(endpoint: Endpoint): Redis {
  const client = redisAt(endpoint, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // A command's own rejection reports a server that is down (the writer counts it); without a
  // listener ioredis prints every failed reconnect attempt as an unhandled error on stderr.
  client.on('error', () => {});
  return client;
}

/**
 * connect(), failing with the server's own words: ioredis rejects a refused AUTH (WRONGPASS,
 * NOAUTH) as "Connection is closed." and gives the reason only as an 'error' event, which with no
 * listener it prints as an unhandled one. A client that failed is disconnected (no retry loop).
 */
export async function connectRedis(client: Redis): Promise<void> {
  let reason: Error | undefined;
  const remember = (error: Error) => {
    reason ??= error;
  };
  client.on('error', remember);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw reason ?? error;
  } finally {
    client.off('error', remember);
  }
}

/** Runs a MULTI and fails if it was aborted or any of its commands failed (ioredis resolves either way). */
export async function execMulti(multi: ChainableCommander): Promise<void> {
  const replies = await multi.exec();
  const failed = replies?.find(([error]) => error !== null)?.[0];
  if (replies === null || failed) throw new Error(`redis MULTI failed: ${failed?.message ?? 'aborted'}`);
}

/** QUIT, or drop the connection if the server cannot answer one (it is down). */
export async function quitRedis(client: Redis): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}

/** One short-lived connection of the harness's own: connected (the server's words if it refuses), used, quit. */
export async function withRedis<T>(endpoint: Endpoint, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = redisClient(endpoint);
  // Outside the try: a client that failed to connect is disconnected already, and QUIT on it would wait forever.
  await connectRedis(client);
  try {
    return await use(client);
  } finally {
    await quitRedis(client);
  }
}

/** INFO's counters that show the server acted on a slow client, and its clients now. */
const EVIDENCE = [
  'client_output_buffer_limit_disconnections',
  'evicted_clients',
  'total_connections_received',
  'connected_clients',
  'pubsub_channels',
];

export function redisCounters(endpoint: Endpoint): Promise<ServerCounters> {
  return withRedis(endpoint, async (client) => {
    const text = await client.info();
    const counters: Record<string, number> = {};
    for (const line of text.split('\r\n')) {
      const [name, value] = line.split(':');
      if (name !== undefined && EVIDENCE.includes(name) && value !== undefined) counters[name] = Number(value);
    }
    return counters;
  });
}

/** Deletes every key whose name starts with `prefix` (SCAN, not KEYS: a shared server stays up). */
export function deleteUnder(endpoint: Endpoint, prefix: string): Promise<void> {
  return withRedis(endpoint, async (client) => {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await client.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  });
}
