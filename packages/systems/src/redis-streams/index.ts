import { integerKnob } from '../knobs.js';
import { decodeStored } from '../change-codec.js';
import { deleteUnder, quitRedis, redisClient, redisCounters, redisServer } from '../servers/redis.js';
import type { Versioned } from '../target-system.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { MAXLEN_KNOB, stateName } from './names.js';
import { redisStreamsWriter } from './writer.js';

export const redisStreams: TargetSystem = {
  name: 'redis-streams',
  summary: 'Redis Streams: XADD with MAXLEN ~ N (and a hash of current values); XREAD from the last id',
  package: 'redis-server',
  server: redisServer,
  knobs: [
    integerKnob(
      MAXLEN_KNOB,
      'XADD MAXLEN ~ N: entries the writer keeps (Redis itself trims nothing; 0: no trim)',
      '1000',
    ),
  ],
  writer: redisStreamsWriter,
  idioms: { naive, careful },
  counters: redisCounters,
  // The hash of current values, which the careful reader relists from (the stream is the feed).
  state: async (endpoint, prefix) => {
    const client = redisClient(endpoint);
    try {
      await client.connect();
      const entries = new Map<string, Versioned>();
      for (const [key, stored] of Object.entries(await client.hgetall(stateName(prefix))))
        entries.set(key, decodeStored(stored));
      return entries;
    } finally {
      await quitRedis(client);
    }
  },
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
