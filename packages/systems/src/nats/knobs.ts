import { natsServerKnobs } from '../servers/nats.js';
import type { SystemKnobs } from '../target-system.js';

/** Core NATS's name and knobs, apart from its client (knob-lists.ts): the server's slow-consumer limits. */
export const natsKnobs: SystemKnobs = { name: 'nats', knobs: natsServerKnobs };
