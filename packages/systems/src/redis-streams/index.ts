import { redisStreamsEdge } from './edge.js';
import { decodeStored } from '../change-codec.js';
import { deleteUnder, redisCounters, redisRemote, redisServer, withRedis } from '../servers/redis.js';
import type { TargetSystem, Versioned } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { redisStreamsKnobs } from './knobs.js';
import { stateName } from './names.js';
import { redisStreamsWriter } from './writer.js';

export const redisStreams: TargetSystem = {
  ...redisStreamsKnobs,
  summary: 'Redis Streams: XADD with MAXLEN ~ N (and a hash of current values); XREAD from the last id',
  package: 'redis-server',
  server: redisServer,
  remote: redisRemote,
  writer: redisStreamsWriter,
  idioms: { naive, careful },
  counters: redisCounters,
  predictEdge: redisStreamsEdge,
  // The hash of current values, which the careful reader relists from (the stream is the feed).
  state: (endpoint, prefix) =>
    withRedis(endpoint, async (client) => {
      const entries = new Map<string, Versioned>();
      for (const [key, stored] of Object.entries(await client.hgetall(stateName(prefix))))
        entries.set(key, decodeStored(stored));
      return entries;
    }),
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
