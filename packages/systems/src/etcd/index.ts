import { etcdEdge } from './edge.js';
import type { Etcd3 } from 'etcd3';
import { etcdClient, etcdCounters, etcdRemote, etcdServer } from '../servers/etcd.js';
import type { Endpoint, TargetSystem } from '../target-system.js';
import { careful, list, naive } from './idioms.js';
import { etcdKnobs } from './knobs.js';
import { keyPrefix } from './names.js';
import { etcdWriter } from './writer.js';

async function withClient<T>(endpoint: Endpoint, use: (client: Etcd3) => Promise<T>): Promise<T> {
  const client = etcdClient(endpoint);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

export const etcd: TargetSystem = {
  ...etcdKnobs,
  summary: 'etcd: put/delete; consumers list the prefix, then watch from revision + 1 (informer)',
  package: 'etcd-server',
  server: etcdServer,
  remote: etcdRemote,
  writer: etcdWriter,
  idioms: { naive, careful },
  counters: etcdCounters,
  predictEdge: etcdEdge,
  state: (endpoint, prefix) => withClient(endpoint, async (client) => (await list(client, prefix)).entries),
  cleanup: (endpoint, prefix) =>
    withClient(endpoint, async (client) => {
      await client.delete().prefix(keyPrefix(prefix)).exec();
    }),
  actions: {
    // Compacts the whole store up to now: history is the store's, not a prefix's (so it is a fault
    // of the server's, refused against an --endpoint).
    compact: (endpoint) =>
      withClient(endpoint, async (client) => {
        const revision = (await client.get('sd-compact-probe').exec()).header.revision;
        await client.kv.compact({ revision, physical: true });
        return Number(revision);
      }),
  },
};
