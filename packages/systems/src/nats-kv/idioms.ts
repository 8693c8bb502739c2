import type { KvWatchEntry } from '@nats-io/kv';
import { reportStatus } from '../nats/connection-signals.js';
import type { Idiom, Sink } from '../target-system.js';
import { openBucket } from './bucket.js';

function apply(sink: Sink, entry: KvWatchEntry): void {
  sink.apply(entry.key, entry.operation === 'PUT' ? entry.string() : null, entry.revision);
}

/** The quickstart: kv.watch() on every key (last values first, then every change). */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const { connection, kv } = await openBucket(endpoint, prefix);
  reportStatus(connection, sink);
  const watch = await kv.watch({ key: '>' });
  void (async () => {
    for await (const entry of watch) apply(sink, entry);
  })().catch((error: Error) => sink.signal('error', error.message));
  return {
    close: async () => {
      watch.stop();
      await connection.close();
    },
  };
};

/**
 * The watcher is an ordered consumer: JetStream redelivers from the stream after a gap or a
 * reconnect by itself, and flow control keeps the server from flooding a stalled reader. What is
 * left to the application is a watch that ends (its consumer deleted, the connection closed for
 * good): then resume from the revision after the last one applied, with nothing skipped.
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const { connection, kv } = await openBucket(endpoint, prefix);
  reportStatus(connection, sink);
  let open = true;
  let lastRevision = 0;
  let watch = await kv.watch({ key: '>' });
  const follow = async () => {
    while (open) {
      for await (const entry of watch) {
        apply(sink, entry);
        lastRevision = entry.revision;
      }
      if (!open) break;
      sink.signal('cancel', `the watch ended after revision ${lastRevision}`);
      watch = await kv.watch({ key: '>', resumeFromRevision: lastRevision + 1 });
      sink.signal('reset', `watching again from revision ${lastRevision + 1}`);
    }
  };
  void follow().catch((error: Error) => sink.signal('error', error.message));
  return {
    close: async () => {
      open = false;
      watch.stop();
      await connection.close();
    },
  };
};
