import { natsEdge } from '../servers/nats-edge.js';
import { natsConnect, natsCounters, natsRemote, natsServer } from '../servers/nats.js';
import type { TargetSystem } from '../target-system.js';
import { careful, naive, snapshotOf } from './idioms.js';
import { natsKnobs } from './knobs.js';
import { liveEntries } from './snapshot.js';
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
  predictEdge: natsEdge,
  // The server keeps nothing: the state is the writer's record, which it serves as the snapshot.
  state: async (endpoint, prefix) => {
    const connection = await natsConnect(endpoint, prefix);
    try {
      return liveEntries(await snapshotOf(connection, prefix));
    } finally {
      await connection.close();
    }
  },
  // Core NATS stores nothing: a run leaves nothing behind to remove.
  cleanup: async () => {},
};
