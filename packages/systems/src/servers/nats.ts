import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { integerKnob, knob, patternKnob } from '../knobs.js';
import type { Endpoint, Knob, RemoteRecipe, ServerCounters, ServerRecipe } from '../target-system.js';
import { getText, numericFields } from './http.js';

/**
 * The server's limits on a client that does not read: a write blocked longer than the deadline,
 * or more than max_pending bytes queued for it, closes its connection as a slow consumer. Neither
 * has a command-line flag: they go in a config file beside the flags.
 */
export const natsServerKnobs: readonly Knob[] = [
  patternKnob(
    'write-deadline',
    'nats-server write_deadline: how long one write to a client may block before it is cut off',
    '10s',
    /^\d+(ms|s|m)$/,
    'a duration such as 500ms, 2s or 1m',
  ),
  integerKnob(
    'max-pending',
    'nats-server max_pending: bytes queued for one client before it is cut off as slow' +
      ' (at least max_payload, 1 MiB: the server refuses to start otherwise)',
    String(64 * 1024 * 1024),
    1024 * 1024,
  ),
];

/** nats-server on loopback with its monitor port (/varz, /healthz); JetStream when `jetstream`. */
export function natsServer(jetstream: boolean): ServerRecipe {
  return {
    binary: 'nats-server',
    ports: 2,
    files: (_ports, _dataDir, knobs) => ({
      'nats.conf': `write_deadline: "${knob(knobs, 'write-deadline')}"\nmax_pending: ${knob(knobs, 'max-pending')}\n`,
    }),
    argv: (ports, dataDir) => [
      '-c',
      `${dataDir}/nats.conf`,
      '-a',
      '127.0.0.1',
      '-p',
      String(ports[0]),
      '-m',
      String(ports[1]),
      ...(jetstream ? ['-js', '-sd', `${dataDir}/jetstream`] : []),
    ],
    endpoint: (ports): Endpoint => ({
      url: `nats://127.0.0.1:${ports[0]}`,
      port: ports[0] ?? 0,
      monitorUrl: `http://127.0.0.1:${ports[1]}`,
    }),
    ready: async (endpoint) => (await getText(`${endpoint.monitorUrl}/healthz`)) !== undefined,
    persists: jetstream
      ? 'the JetStream store (the KV bucket) in the data directory; core subscriptions do not'
      : 'nothing: core NATS keeps no message; clients resubscribe on reconnect',
  };
}

/** nats-server's own monitoring port, where an endpoint's /varz is looked for (if it answers). */
const MONITOR_PORT = 8222;

/** A nats-server someone runs: `nats://` (TLS if the server asks for it) or `tls://` (TLS required). */
export const natsRemote: RemoteRecipe = {
  schemes: ['nats:', 'tls:'],
  tlsSchemes: ['tls:'],
  defaultPort: 4222,
  takes: ['username', 'password', 'token', 'tls'],
  monitorUrl: (url) => `http://${url.hostname}:${MONITOR_PORT}`,
};

/**
 * A connection to the endpoint, as the NATS client takes credentials (user/pass or token, and
 * `tls` with CA, certificate and key as PEM text). Its reply inboxes live under the run's prefix
 * too (`inboxPrefix`; the client's default is `_INBOX`), so a run subscribes to nothing outside
 * it but the JetStream API and KV subjects a bucket needs.
 */
export function natsConnect(endpoint: Endpoint, prefix: string): Promise<NatsConnection> {
  const { username, password, token, tls } = endpoint.credentials ?? {};
  const options: ConnectionOptions = { servers: endpoint.url, inboxPrefix: `${prefix}._INBOX` };
  if (username !== undefined) options.user = username;
  if (password !== undefined) options.pass = password;
  if (token !== undefined) options.token = token;
  if (tls !== undefined || endpoint.url.startsWith('tls:')) options.tls = { ...tls };
  return connect(options);
}

const VARZ = ['slow_consumers', 'connections', 'total_connections', 'out_msgs', 'out_bytes', 'in_msgs'];

export async function natsCounters(endpoint: Endpoint): Promise<ServerCounters> {
  if (endpoint.monitorUrl === undefined) return {};
  const varz = await getText(`${endpoint.monitorUrl}/varz`);
  return varz === undefined ? {} : numericFields(varz, VARZ);
}
