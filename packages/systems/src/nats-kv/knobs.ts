import { clientKnob, integerKnob } from '../knobs.js';
import { natsServerKnobs } from '../servers/nats.js';
import type { SystemKnobs } from '../target-system.js';

/** NATS KV's name and knobs, apart from its client (knob-lists.ts): the server's limits and the bucket's history. */
export const natsKvKnobs: SystemKnobs = {
  name: 'nats-kv',
  knobs: [
    ...natsServerKnobs,
    // The bucket is created by the run (prepare), so its history is ours to choose on any server.
    clientKnob(integerKnob('history', 'KV bucket history: values kept per key (JetStream allows 1-64)', '1', 1)),
  ],
};
