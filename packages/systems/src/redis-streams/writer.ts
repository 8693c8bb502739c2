import { encodeStored } from '../change-codec.js';
import { knob } from '../knobs.js';
import { connectRedis, execMulti, quitRedis, redisClient } from '../servers/redis.js';
import type { Endpoint, KnobValues, Writer } from '../target-system.js';
import { MAXLEN_KNOB, stateName, streamName } from './names.js';

/**
 * XADD each change with the docs' approximate trim (MAXLEN ~ N; 0 keeps every entry), and in the
 * same MULTI set the key in a hash of current values: the stream is the change feed, the hash
 * what a reader relists from once the feed has been trimmed past it. The writer's seq goes in
 * every entry; one connection keeps the stream in seq order.
 */
export async function redisStreamsWriter(endpoint: Endpoint, prefix: string, knobs: KnobValues): Promise<Writer> {
  const maxlen = Number(knob(knobs, MAXLEN_KNOB));
  const client = redisClient(endpoint);
  await connectRedis(client);
  let seq = 0;
  return {
    write: async (key, value) => {
      seq += 1;
      const own = seq;
      const multi = client.multi();
      if (value === null) multi.hdel(stateName(prefix), key);
      else multi.hset(stateName(prefix), key, encodeStored(own, value));
      const fields = value === null ? ['k', key, 's', String(own)] : ['k', key, 's', String(own), 'v', value];
      if (maxlen > 0) multi.xadd(streamName(prefix), 'MAXLEN', '~', String(maxlen), '*', ...fields);
      else multi.xadd(streamName(prefix), '*', ...fields);
      await execMulti(multi);
      return own;
    },
    close: () => quitRedis(client),
  };
}
