import { Kvm } from '@nats-io/kv';
import { integerKnob, knob } from '../knobs.js';
import { natsConnect, natsCounters, natsKnobs, natsRemote, natsServer } from '../servers/nats.js';
import type { Endpoint, TargetSystem } from '../target-system.js';
import { careful, naive } from './idioms.js';
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
  name: 'nats-kv',
  summary: 'NATS JetStream KV: put/delete; consumers kv.watch() every key',
  package: 'nats-server',
  server: natsServer(true),
  remote: natsRemote,
  knobs: [
    ...natsKnobs,
    integerKnob('history', 'KV bucket history: values kept per key (JetStream allows 1-64)', '1', 1),
  ],
  prepare: (endpoint, prefix, knobs) =>
    withKvm(endpoint, prefix, async (kvm) => {
      await kvm.create(prefix, { history: Number(knob(knobs, 'history')) });
    }),
  writer: natsKvWriter,
  idioms: { naive, careful },
  counters: natsCounters,
  cleanup: (endpoint, prefix) =>
    withKvm(endpoint, prefix, async (kvm) => {
      await (await kvm.open(prefix)).destroy();
    }),
};
