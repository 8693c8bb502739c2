import { patternKnob } from '../knobs.js';
import type { SystemKnobs } from '../target-system.js';

/** Redis's own name for the pub/sub output buffer limit (servers/redis.ts puts it on the command line). */
export const PUBSUB_LIMIT_KNOB = 'client-output-buffer-limit-pubsub';

/** Redis pub/sub's name and knob, apart from its client (knob-lists.ts): the limit that cuts a slow subscriber off. */
export const redisPubsubKnobs: SystemKnobs = {
  name: 'redis-pubsub',
  knobs: [
    patternKnob(
      PUBSUB_LIMIT_KNOB,
      'redis client-output-buffer-limit pubsub: hard limit, soft limit, soft seconds',
      '32mb 8mb 60',
      /^\d+[kmg]?b? \d+[kmg]?b? \d+$/i,
      'three values "HARD SOFT SECONDS", e.g. "64kb 16kb 1"',
    ),
  ],
};
