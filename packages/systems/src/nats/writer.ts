import { connect } from '@nats-io/transport-node';
import { encodeChange } from '../change-codec.js';
import type { Endpoint, Writer } from '../target-system.js';
import { changeSubject, checkKey, snapshotSubject } from './names.js';
import type { Snapshot } from './snapshot.js';

/**
 * Core NATS publish on the key's subject, carrying the writer's global seq. Core publish has
 * no acknowledgement of its own: a flush (PING, then the server's PONG) says the server has read
 * every publish sent before it, which is as far as core NATS can acknowledge. The writer also
 * answers snapshot requests with everything it has written.
 */
export async function natsWriter(endpoint: Endpoint, prefix: string): Promise<Writer> {
  const connection = await connect({ servers: endpoint.url });
  const written = new Map<string, { value: string | null; seq: number }>();
  let seq = 0;
  connection.subscribe(snapshotSubject(prefix), {
    callback: (error, message) => {
      if (error !== null) return;
      const entries = [...written].map(([key, { value, seq: at }]): Snapshot['entries'][number] => [key, value, at]);
      message.respond(JSON.stringify({ seq, entries } satisfies Snapshot));
    },
  });
  return {
    write: async (key, value) => {
      seq += 1;
      const own = seq;
      written.set(checkKey(key), { value, seq: own });
      connection.publish(changeSubject(prefix, key), encodeChange({ key, value, seq: own }));
      await connection.flush();
      return own;
    },
    close: async () => {
      await connection.drain().catch(() => connection.close());
    },
  };
}
