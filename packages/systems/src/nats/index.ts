import { natsCounters, natsRemote, natsServer } from '../servers/nats.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
import { natsKnobs } from './knobs.js';
import { natsWriter } from './writer.js';

export const nats: TargetSystem = {
  ...natsKnobs,
  summary: 'core NATS: publish on a subject per key; consumers subscribe to them all',
  package: 'nats-server',
  server: natsServer(false),
  remote: natsRemote,
  writer: natsWriter,
  idioms: { naive, careful },
  counters: natsCounters,
  // Core NATS stores nothing: a run leaves nothing behind to remove.
  cleanup: async () => {},
};
