import { encodeChange, encodeStored } from '../change-codec.js';
import { connectRedis, execMulti, quitRedis, redisClient } from '../servers/redis.js';
import type { Endpoint, Writer } from '../target-system.js';
import { channelName, keyName, seqName } from './names.js';

/**
 * SET (or DEL) the key and PUBLISH the change in one MULTI: a reader of the keys and a
 * subscriber see the same writes. Redis keeps no order of its own to carry, so the writer's
 * global seq goes in the stored value and the message; all writes go over one connection, in
 * order, so the server applies them in seq order.
 */
export async function redisPubsubWriter(endpoint: Endpoint, prefix: string): Promise<Writer> {
  const client = redisClient(endpoint);
  await connectRedis(client);
  let seq = 0;
  return {
    write: async (key, value) => {
      seq += 1;
      const own = seq;
      const multi = client.multi();
      if (value === null) multi.del(keyName(prefix, key));
      else multi.set(keyName(prefix, key), encodeStored(own, value));
      multi.set(seqName(prefix), String(own));
      multi.publish(channelName(prefix), encodeChange({ key, value, seq: own }));
      await execMulti(multi);
      return own;
    },
    close: () => quitRedis(client),
  };
}
