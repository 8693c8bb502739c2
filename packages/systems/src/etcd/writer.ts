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
      const response =
        value === null
          ? await client.delete().key(keyName(prefix, key)).exec()
          : await client.put(keyName(prefix, key)).value(value).exec();
      return Number(response.header.revision);
    },
    close: async () => {
      client.close();
    },
  };
}
