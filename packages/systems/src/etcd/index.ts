import { Etcd3 } from 'etcd3';
import { etcdCounters, etcdKnobs, etcdServer } from '../servers/etcd.js';
import type { TargetSystem } from '../target-system.js';
import { careful, list, naive } from './idioms.js';
import { keyPrefix } from './names.js';
import { etcdWriter } from './writer.js';

async function withClient<T>(url: string, use: (client: Etcd3) => Promise<T>): Promise<T> {
  const client = new Etcd3({ hosts: url });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

export const etcd: TargetSystem = {
  name: 'etcd',
  summary: 'etcd: put/delete; consumers list the prefix, then watch from revision + 1 (informer)',
  package: 'etcd-server',
  server: etcdServer,
  knobs: etcdKnobs,
  writer: etcdWriter,
  idioms: { naive, careful },
  counters: etcdCounters,
  state: (endpoint, prefix) => withClient(endpoint.url, async (client) => (await list(client, prefix)).entries),
  cleanup: (endpoint, prefix) =>
    withClient(endpoint.url, async (client) => {
      await client.delete().prefix(keyPrefix(prefix)).exec();
    }),
  actions: {
    // Compacts the whole store up to now: history is the store's, not a prefix's.
    compact: (endpoint) =>
      withClient(endpoint.url, async (client) => {
        const revision = (await client.get('sd-compact-probe').exec()).header.revision;
        await client.kv.compact({ revision, physical: true });
        return Number(revision);
      }),
  },
};
