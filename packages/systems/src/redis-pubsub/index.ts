import { patternKnob } from '../knobs.js';
import {
  deleteUnder,
  PUBSUB_LIMIT_KNOB,
  quitRedis,
  redisClient,
  redisCounters,
  redisServer,
} from '../servers/redis.js';
import { listKeys } from './listing.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { redisPubsubWriter } from './writer.js';

export const redisPubsub: TargetSystem = {
  name: 'redis-pubsub',
  summary: 'Redis: SET/DEL + PUBLISH in one MULTI; consumers read every key, then SUBSCRIBE',
  package: 'redis-server',
  server: redisServer,
  knobs: [
    patternKnob(
      PUBSUB_LIMIT_KNOB,
      'redis client-output-buffer-limit pubsub: hard limit, soft limit, soft seconds',
      '32mb 8mb 60',
      /^\d+[kmg]?b? \d+[kmg]?b? \d+$/i,
      'three values "HARD SOFT SECONDS", e.g. "64kb 16kb 1"',
    ),
  ],
  writer: (endpoint, prefix) => redisPubsubWriter(endpoint, prefix),
  idioms: { naive, careful },
  counters: redisCounters,
  state: async (endpoint, prefix) => {
    const client = redisClient(endpoint);
    try {
      await client.connect();
      return (await listKeys(client, prefix)).entries;
    } finally {
      await quitRedis(client);
    }
  },
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
