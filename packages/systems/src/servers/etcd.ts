import { Etcd3, type IOptions } from 'etcd3';
import type { Endpoint, RemoteRecipe, ServerCounters, ServerRecipe } from '../target-system.js';
import { getText, metricValues } from './http.js';

/** A one-member etcd cluster on loopback: its client port first, its peer port second. */
export const etcdServer: ServerRecipe = {
  binary: 'etcd',
  ports: 2,
  argv: (ports, dataDir, knobs) => {
    const client = `http://127.0.0.1:${ports[0]}`;
    const peer = `http://127.0.0.1:${ports[1]}`;
    return [
      '--name',
      'sd',
      '--data-dir',
      `${dataDir}/etcd`,
      '--listen-client-urls',
      client,
      '--advertise-client-urls',
      client,
      '--listen-peer-urls',
      peer,
      '--initial-advertise-peer-urls',
      peer,
      '--initial-cluster',
      `sd=${peer}`,
      '--auto-compaction-retention',
      knobs['auto-compaction-retention'] ?? '0',
      '--auto-compaction-mode',
      knobs['auto-compaction-mode'] ?? 'periodic',
    ];
  },
  endpoint: (ports): Endpoint => ({
    url: `http://127.0.0.1:${ports[0]}`,
    port: ports[0] ?? 0,
    monitorUrl: `http://127.0.0.1:${ports[0]}`,
  }),
  ready: async (endpoint) => (await getText(`${endpoint.url}/health`))?.includes('"true"') ?? false,
  persists: 'everything: the store and its revision survive a restart on the same data directory',
};

/** An etcd someone runs: gRPC over http or https; /metrics on the client URL, as etcd serves it. */
export const etcdRemote: RemoteRecipe = {
  schemes: ['http:', 'https:'],
  tlsSchemes: ['https:'],
  defaultPort: 2379,
  takes: ['username', 'password', 'tls'],
  monitorUrl: (url) => url.origin,
};

/**
 * A client of the endpoint, as etcd3 takes credentials: `auth` (etcd's users: a password
 * exchanged for a token) and `credentials` (grpc's createSsl: CA, client key and certificate).
 */
export function etcdClient(endpoint: Endpoint): Etcd3 {
  const { username, password, tls } = endpoint.credentials ?? {};
  const options: IOptions = { hosts: endpoint.url };
  if (password !== undefined) options.auth = { username: username ?? '', password };
  if (tls !== undefined)
    options.credentials = {
      // createSsl takes null for "the system's roots"; etcd3's type asks for a Buffer regardless.
      rootCertificate: (tls.ca === undefined ? null : Buffer.from(tls.ca)) as Buffer,
      ...(tls.key !== undefined && { privateKey: Buffer.from(tls.key) }),
      ...(tls.cert !== undefined && { certChain: Buffer.from(tls.cert) }),
    };
  return new Etcd3(options);
}

const METRICS = [
  'etcd_debugging_mvcc_slow_watcher_total',
  'etcd_debugging_mvcc_watcher_total',
  'etcd_debugging_mvcc_pending_events_total',
  'etcd_debugging_mvcc_compact_revision',
  'etcd_debugging_mvcc_current_revision',
];

export async function etcdCounters(endpoint: Endpoint): Promise<ServerCounters> {
  if (endpoint.monitorUrl === undefined) return {};
  const metrics = await getText(`${endpoint.monitorUrl}/metrics`);
  return metrics === undefined ? {} : metricValues(metrics, METRICS);
}
