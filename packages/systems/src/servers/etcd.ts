import type { Endpoint, ServerCounters, ServerRecipe } from '../target-system.js';
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
