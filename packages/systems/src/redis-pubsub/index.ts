import { redisPubsubEdge } from './edge.js';
import { deleteUnder, redisCounters, redisRemote, redisServer, withRedis } from '../servers/redis.js';
import { listKeys } from './listing.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { redisPubsubKnobs } from './knobs.js';
import { redisPubsubWriter } from './writer.js';

export const redisPubsub: TargetSystem = {
  ...redisPubsubKnobs,
  summary: 'Redis: SET/DEL + PUBLISH in one MULTI; consumers read every key, then SUBSCRIBE',
  package: 'redis-server',
  server: redisServer,
  remote: redisRemote,
  writer: (endpoint, prefix) => redisPubsubWriter(endpoint, prefix),
  idioms: { naive, careful },
  counters: redisCounters,
  predictEdge: redisPubsubEdge,
  state: (endpoint, prefix) => withRedis(endpoint, async (client) => (await listKeys(client, prefix)).entries),
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
