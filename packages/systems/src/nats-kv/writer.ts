import { headers } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { Endpoint, Writer } from '../target-system.js';
import { openBucket } from './bucket.js';

/**
 * kv.put per change; its seq is the stream sequence JetStream acknowledged it at (the KV's own
 * revision). kv.delete resolves with nothing, so a delete is the message kv.delete itself
 * publishes (an empty body with `KV-Operation: DEL` on the key's subject), whose
 * acknowledgement carries the sequence.
 */
export async function natsKvWriter(endpoint: Endpoint, prefix: string): Promise<Writer> {
  const { connection, kv } = await openBucket(endpoint, prefix);
  const js = jetstream(connection);
  return {
    write: async (key, value) => {
      if (value !== null) return kv.put(key, value);
      const deleting = headers();
      deleting.set('KV-Operation', 'DEL');
      return (await js.publish(`$KV.${prefix}.${key}`, '', { headers: deleting })).seq;
    },
    close: async () => {
      await connection.drain().catch(() => connection.close());
    },
  };
}
