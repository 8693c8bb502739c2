import type { NatsConnection } from '@nats-io/transport-node';
import { natsConnect } from '../servers/nats.js';
import { Kvm, type KV } from '@nats-io/kv';
import type { Endpoint } from '../target-system.js';

/** The run's bucket is named by its prefix (bucket names take the same characters). */
export async function openBucket(endpoint: Endpoint, prefix: string): Promise<{ connection: NatsConnection; kv: KV }> {
  const connection = await natsConnect(endpoint, prefix);
  try {
    return { connection, kv: await new Kvm(connection).open(prefix) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
