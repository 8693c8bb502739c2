import { etcdClient } from '../servers/etcd.js';
import type { Endpoint, Writer } from '../target-system.js';
import { keyName } from './names.js';

/**
 * One put (or delete) per change; its seq is the revision the store committed it at. The
 * store's commit order is the authority: concurrent puts may commit out of the order they were
 * issued in, and the revision says which came last.
 */
export async function etcdWriter(endpoint: Endpoint, prefix: string): Promise<Writer> {
  const client = etcdClient(endpoint);
  return {
    write: async (key, value) => {
      if (value === null) {
        const response = await client.delete().key(keyName(prefix, key)).exec();
        // Nothing deleted, no revision made: the header's revision is another write's.
        return response.deleted === '0' ? null : Number(response.header.revision);
      }
      return Number((await client.put(keyName(prefix, key)).value(value).exec()).header.revision);
    },
    close: async () => {
      client.close();
    },
  };
}
