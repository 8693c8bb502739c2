import { clientKnob, integerKnob } from '../knobs.js';
import type { SystemKnobs } from '../target-system.js';
import { MAXLEN_KNOB } from './names.js';

/** Redis Streams's name and knob, apart from its client (knob-lists.ts): the writer's MAXLEN. */
export const redisStreamsKnobs: SystemKnobs = {
  name: 'redis-streams',
  knobs: [
    clientKnob(
      integerKnob(
        MAXLEN_KNOB,
        'XADD MAXLEN ~ N: entries the writer keeps (Redis itself trims nothing; 0: no trim)',
        '1000',
      ),
    ),
  ],
};
