import { integerKnob } from '../knobs.js';
import { deleteUnder, redisRemote, redisCounters, redisServer } from '../servers/redis.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { MAXLEN_KNOB } from './names.js';
import { redisStreamsWriter } from './writer.js';

export const redisStreams: TargetSystem = {
  name: 'redis-streams',
  summary: 'Redis Streams: XADD with MAXLEN ~ N (and a hash of current values); XREAD from the last id',
  package: 'redis-server',
  server: redisServer,
  remote: redisRemote,
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
  cleanup: (endpoint, prefix) => deleteUnder(endpoint, `${prefix}:`),
};
