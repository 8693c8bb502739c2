import { connect } from '@nats-io/transport-node';
import { decodeChange, type Change } from '../change-codec.js';
import type { Idiom, Sink } from '../target-system.js';
import { reportStatus } from './connection-signals.js';
import { allChanges, snapshotSubject } from './names.js';
import { decodeSnapshot } from './snapshot.js';

const SNAPSHOT_TIMEOUT_MS = 5_000;

function apply(sink: Sink, change: Change): void {
  sink.apply(change.key, change.value, change.seq);
}

/** The quickstart: subscribe to every key's subject and apply each message. */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const connection = await connect({ servers: endpoint.url });
  reportStatus(connection, sink);
  connection.subscribe(allChanges(prefix), {
    callback: (error, message) => {
      if (error === null) apply(sink, decodeChange(message.string()));
    },
  });
  await connection.flush();
  return { close: () => connection.close() };
};

/**
 * Core NATS delivers at most once, to whoever is connected: what was published while the
 * connection was down (the server cut a slow consumer off) is gone. So: subscribe, then ask the
 * writer for a snapshot, at the start and after every reconnect; messages that arrive meanwhile
 * wait, and those the snapshot already holds (seq at or below its own) are dropped.
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const connection = await connect({ servers: endpoint.url });
  let waiting: Change[] | undefined = [];
  let relists = Promise.resolve();
  const relist = async (first: boolean) => {
    waiting = [];
    const reply = await connection.request(snapshotSubject(prefix), '', { timeout: SNAPSHOT_TIMEOUT_MS });
    const snapshot = decodeSnapshot(reply.string());
    sink.replace(snapshot.entries);
    for (const change of waiting) if (change.seq > snapshot.seq) apply(sink, change);
    waiting = undefined;
    if (!first) sink.signal('relist', `at seq ${snapshot.seq}, ${snapshot.entries.size} keys`);
  };
  const queueRelist = (first: boolean) => {
    relists = relists.then(() => relist(first)).catch((error: Error) => sink.signal('error', error.message));
  };
  reportStatus(connection, sink, () => queueRelist(false));
  connection.subscribe(allChanges(prefix), {
    callback: (error, message) => {
      if (error !== null) return;
      const change = decodeChange(message.string());
      if (waiting === undefined) apply(sink, change);
      else waiting.push(change);
    },
  });
  await connection.flush();
  queueRelist(true);
  await relists;
  return { close: () => connection.close() };
};
