import { natsKvEdge } from './edge.js';
import { Kvm } from '@nats-io/kv';
import { knob } from '../knobs.js';
import { natsConnect, natsCounters, natsRemote, natsServer } from '../servers/nats.js';
import type { Endpoint, TargetSystem, Versioned } from '../target-system.js';
import { openBucket } from './bucket.js';
import { careful, naive } from './idioms.js';
import { natsKvKnobs } from './knobs.js';
import { natsKvWriter } from './writer.js';

async function withKvm<T>(endpoint: Endpoint, prefix: string, use: (kvm: Kvm) => Promise<T>): Promise<T> {
  const connection = await natsConnect(endpoint, prefix);
  try {
    return await use(new Kvm(connection));
  } finally {
    await connection.close();
  }
}

export const natsKv: TargetSystem = {
  ...natsKvKnobs,
  summary: 'NATS JetStream KV: put/delete; consumers kv.watch() every key',
  package: 'nats-server',
  server: natsServer(true),
  remote: natsRemote,
  prepare: (endpoint, prefix, knobs) =>
    withKvm(endpoint, prefix, async (kvm) => {
      await kvm.create(prefix, { history: Number(knob(knobs, 'history')) });
    }),
  writer: natsKvWriter,
  idioms: { naive, careful },
  counters: natsCounters,
  predictEdge: natsKvEdge,
  state: async (endpoint, prefix) => {
    const { connection, kv } = await openBucket(endpoint, prefix);
    try {
      const entries = new Map<string, Versioned>();
      for await (const key of await kv.keys()) {
        const entry = await kv.get(key);
        if (entry?.operation === 'PUT') entries.set(key, { value: entry.string(), seq: entry.revision });
      }
      return entries;
    } finally {
      await connection.close();
    }
  },
  cleanup: (endpoint, prefix) =>
    withKvm(endpoint, prefix, async (kvm) => {
      await (await kvm.open(prefix)).destroy();
    }),
};
