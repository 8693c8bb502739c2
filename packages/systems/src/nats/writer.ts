import type { Msg } from '@nats-io/transport-node';
import { natsConnect } from '../servers/nats.js';
import { encodeChange } from '../change-codec.js';
import type { Endpoint, Writer } from '../target-system.js';
import { changeSubject, checkKey, snapshotSubject } from './names.js';
import { PAGE_BYTES, type SnapshotPage, type SnapshotRequest } from './snapshot.js';

/**
 * Core NATS publish on the key's subject, carrying the writer's global seq. Core publish has
 * no acknowledgement of its own: a flush (PING, then the server's PONG) says the server has read
 * every publish sent before it, which is as far as core NATS can acknowledge. The writer also
 * answers snapshot requests with everything it has written (snapshot.ts). A write whose flush
 * fails (the server went down: the client rejects every flush pending at the disconnect) leaves
 * its key as the last acknowledged write had it, so the snapshot holds no write that failed.
 */
export async function natsWriter(endpoint: Endpoint, prefix: string): Promise<Writer> {
  const connection = await natsConnect(endpoint, prefix);
  // Insertion order never changes (a delete keeps its key, as a null): page indexes stay valid.
  const written = new Map<string, { value: string | null; seq: number }>();
  const order: string[] = [];
  const acknowledged = new Map<string, { value: string | null; seq: number }>();
  const answer = (error: Error | null, message: Msg) => {
    if (error !== null) return;
    const { from } = message.json<SnapshotRequest>();
    const entries: SnapshotPage['entries'] = [];
    let bytes = 0;
    let at = from;
    for (; at < order.length && bytes < PAGE_BYTES; at += 1) {
      const key = order[at]!;
      const { value, seq } = written.get(key)!;
      entries.push([key, value, seq]);
      bytes += key.length + (value?.length ?? 0) + 16;
    }
    const page: SnapshotPage = at < order.length ? { entries, next: at } : { entries };
    message.respond(JSON.stringify(page));
  };
  connection.subscribe(snapshotSubject(prefix), { callback: answer });
  let seq = 0;
  return {
    write: async (key, value) => {
      seq += 1;
      const own = seq;
      if (!written.has(checkKey(key))) order.push(key);
      written.set(key, { value, seq: own });
      connection.publish(changeSubject(prefix, key), encodeChange({ key, value, seq: own }));
      try {
        await connection.flush();
      } catch (error) {
        if (written.get(key)?.seq === own) written.set(key, acknowledged.get(key) ?? { value: null, seq: 0 });
        throw error;
      }
      if ((acknowledged.get(key)?.seq ?? 0) < own) acknowledged.set(key, { value, seq: own });
      return own;
    },
    close: async () => {
      await connection.drain().catch(() => connection.close());
    },
  };
}
