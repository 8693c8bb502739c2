import { integerKnob } from '../knobs.js';
import { natsServerKnobs } from '../servers/nats.js';
import type { SystemKnobs } from '../target-system.js';

/** NATS KV's name and knobs, apart from its client (knob-lists.ts): the server's limits and the bucket's history. */
export const natsKvKnobs: SystemKnobs = {
  name: 'nats-kv',
  knobs: [
    ...natsServerKnobs,
    integerKnob('history', 'KV bucket history: values kept per key (JetStream allows 1-64)', '1', 1),
  ],
};
