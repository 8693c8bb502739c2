import { natsCounters, natsKnobs, natsServer } from '../servers/nats.js';
import type { TargetSystem } from '../target-system.js';
import { connect } from '@nats-io/transport-node';
import { careful, naive, snapshotOf } from './idioms.js';
import { liveEntries } from './snapshot.js';
import { natsWriter } from './writer.js';

export const nats: TargetSystem = {
  name: 'nats',
  summary: 'core NATS: publish on a subject per key; consumers subscribe to them all',
  package: 'nats-server',
  server: natsServer(false),
  knobs: natsKnobs,
  writer: natsWriter,
  idioms: { naive, careful },
  counters: natsCounters,
  // The server keeps nothing: the state is the writer's record, which it serves as the snapshot.
  state: async (endpoint, prefix) => {
    const connection = await connect({ servers: endpoint.url });
    try {
      return liveEntries(await snapshotOf(connection, prefix));
    } finally {
      await connection.close();
    }
  },
  // Core NATS stores nothing: a run leaves nothing behind to remove.
  cleanup: async () => {},
};
