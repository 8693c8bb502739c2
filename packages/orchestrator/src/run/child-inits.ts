import {
  BATCH_MAX_EVENTS,
  BROKER_HOST,
  DEFAULT_STALE_AFTER_MS,
  settingsOf,
  STREAM_WINDOW_BYTES,
  type BrokerEndpoint,
  type BrokerInit,
  type ConsumerInit,
  type DurableSettings,
  type KnobsOf,
  type LogSettings,
  type Mode,
  type OverflowPolicy,
  type PublisherInit,
  type RelayInit,
  type Settings,
} from '@state-divergence/protocol';
import { RunError } from '../model/errors.js';
import type { ChildHandle } from './child/child-handle.js';
import { brokerFeatures, consumerFeatures } from './mode-features.js';
import type { RunCertificate } from './tls.js';

/** The configuration messages of each role, in one place for the CLI's runs and the benchmarks. */

/**
 * Its knobs (protocol's settings.ts: the ones `sentTo` the broker) are copied from `settings`,
 * which may hold more; what `mode` means to it is run/mode-features.ts's to say.
 */
export function brokerInit(
  settings: Pick<Settings, KnobsOf<'broker'> | 'datagramSize'> & {
    mode: Mode;
    overflow: OverflowPolicy;
    tls: RunCertificate;
    token: string;
    log: LogSettings;
    /** Where a mode that keeps a log keeps it (directory, fsync, retention); absent in any other. */
    durableLog?: DurableSettings | null;
  },
): BrokerInit {
  const features = brokerFeatures(settings.mode, settings.overflow, settings.durableLog ?? null);
  // Port 0: any free port. A restart binds the first start's (run/cluster.ts), so clients find it again.
  return {
    role: 'broker',
    name: 'broker',
    host: BROKER_HOST,
    port: 0,
    ...features,
    ...settingsOf('broker', settings),
    batchMaxEvents: BATCH_MAX_EVENTS,
    streamWindowBytes: STREAM_WINDOW_BYTES,
    datagramBytes: settings.datagramSize,
    certPem: settings.tls.certPem,
    keyPem: settings.tls.keyPem,
    token: settings.token,
    log: settings.log,
  };
}

/**
 * Where clients reach the broker that `init` configured, once it has said ready: its port, and the
 * pin, token and transport settings of its own init, so a client can never be told other ones.
 */
export function brokerEndpoint(broker: ChildHandle<'broker'>, init: BrokerInit): BrokerEndpoint {
  if (broker.port === undefined) throw new RunError('E_IPC', `broker (pid ${broker.pid}) said ready without a port`);
  return {
    host: init.host,
    port: broker.port,
    caPem: init.certPem,
    idleTimeoutMs: init.idleTimeoutMs,
    datagramBytes: init.datagramBytes,
    token: init.token,
  };
}

/**
 * How a consumer subscribes and recovers is its mode's (run/mode-features.ts): today's consumer,
 * or one that can recover. `checkpointDir`: its own directory under the run's data dir, kept only
 * where the mode keeps a log.
 */
export function consumerInit(
  name: string,
  broker: BrokerEndpoint,
  mode: Mode,
  log: LogSettings,
  checkpointDir: string | null = null,
  staleAfterMs = DEFAULT_STALE_AFTER_MS,
): ConsumerInit {
  const features = consumerFeatures(mode, checkpointDir, staleAfterMs);
  return { role: 'consumer', name, broker, ...features, log };
}

/** Its workload (protocol's settings.ts: the knobs `sentTo` the publisher) is copied from `workload`, which may hold
 * more. */
export function publisherInit(
  broker: BrokerEndpoint,
  workload: Pick<Settings, KnobsOf<'publisher'>>,
  log: LogSettings,
): PublisherInit {
  return { role: 'publisher', name: 'publisher', broker, ...settingsOf('publisher', workload), log };
}

/**
 * The fault relay in front of `broker` for one client (`relay-<client>`): it forwards to the
 * broker's own address (a restarted broker binds the same port) and logs the run's datagram size
 * (its socket buffers are a fixed 4 MiB, enough at any size); `seed` (the run's) makes its drops
 * and jitter repeat.
 */
export function relayInit(client: string, broker: BrokerEndpoint, seed: number, log: LogSettings): RelayInit {
  return {
    role: 'relay',
    name: `relay-${client}`,
    client,
    upstream: { host: broker.host, port: broker.port },
    datagramBytes: broker.datagramBytes,
    seed,
    log,
  };
}

/**
 * The endpoint a network-faulted client is given: the broker's in every respect (pin, token,
 * transport settings) but the port, which is its relay's, so all its datagrams pass the relay.
 */
export function throughRelay(relay: ChildHandle<'relay'>, broker: BrokerEndpoint): BrokerEndpoint {
  if (relay.port === undefined)
    throw new RunError('E_IPC', `${relay.name} (pid ${relay.pid}) said ready without a port`);
  return { ...broker, port: relay.port };
}
