import type { NatsConnection } from '@nats-io/transport-node';
import { natsConnect } from '../servers/nats.js';
import { decodeChange, type Change } from '../change-codec.js';
import { serialRelister } from '../serial-relist.js';
import type { Idiom, Sink } from '../target-system.js';
import { reportStatus } from './connection-signals.js';
import { allChanges, snapshotSubject } from './names.js';
import { liveEntries, type Known, type SnapshotPage, type SnapshotRequest } from './snapshot.js';

const SNAPSHOT_TIMEOUT_MS = 5_000;

function apply(sink: Sink, change: Change): void {
  sink.apply(change.key, change.value, change.seq);
}

/** The quickstart: subscribe to every key's subject and apply each message. */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const connection = await natsConnect(endpoint, prefix);
  reportStatus(connection, sink);
  connection.subscribe(allChanges(prefix), {
    callback: (error, message) => {
      if (error === null) apply(sink, decodeChange(message.string()));
    },
  });
  await connection.flush();
  return { close: () => connection.close() };
};

/** Every page of the writer's snapshot (snapshot.ts). */
export async function snapshotOf(connection: NatsConnection, prefix: string): Promise<Known> {
  const known: Known = new Map();
  let from: number | undefined = 0;
  while (from !== undefined) {
    const request = JSON.stringify({ from } satisfies SnapshotRequest);
    const reply = await connection.request(snapshotSubject(prefix), request, {
      timeout: SNAPSHOT_TIMEOUT_MS,
    });
    const page = reply.json<SnapshotPage>();
    for (const [key, value, seq] of page.entries) known.set(key, { value, seq });
    from = page.next;
  }
  return known;
}

/**
 * Core NATS delivers at most once, to whoever is connected: what was published while the
 * connection was down (the server cut a slow consumer off) is gone. So: subscribe, then ask the
 * writer for a snapshot, at the start and after every reconnect. Messages that arrive meanwhile
 * wait; each is applied after the snapshot if it is newer than what the snapshot says of its
 * key (pages are read at different moments, so the comparison is per key).
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const connection = await natsConnect(endpoint, prefix);
  let waiting: Change[] | undefined = [];
  let open = true;
  const relist = async (first: boolean) => {
    waiting = [];
    const known = await snapshotOf(connection, prefix);
    sink.replace(liveEntries(known));
    for (const change of waiting) if (change.seq > (known.get(change.key)?.seq ?? 0)) apply(sink, change);
    waiting = undefined;
    if (!first) sink.signal('relist', `${known.size} keys`);
  };
  const relister = serialRelister(relist, sink, () => open);
  reportStatus(connection, sink, () => relister.queue(false));
  connection.subscribe(allChanges(prefix), {
    callback: (error, message) => {
      if (error !== null) return;
      const change = decodeChange(message.string());
      if (waiting === undefined) apply(sink, change);
      else waiting.push(change);
    },
  });
  await connection.flush();
  relister.queue(true);
  await relister.settled();
  return {
    close: async () => {
      open = false;
      await connection.close();
    },
  };
};
