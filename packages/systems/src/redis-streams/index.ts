import { deleteUnder, redisRemote, redisCounters, redisServer } from '../servers/redis.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { redisStreamsKnobs } from './knobs.js';
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
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
