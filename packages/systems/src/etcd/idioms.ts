import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import { etcdClient } from '../servers/etcd.js';
import type { Idiom, Sink, Versioned } from '../target-system.js';
import { keyOf, keyPrefix } from './names.js';

const RELIST_RETRY_MS = 500;

interface Listing {
  entries: Map<string, Versioned>;
  revision: number;
}

/** The prefix's keys and the store revision they were read at. */
export async function list(client: Etcd3, prefix: string): Promise<Listing> {
  const response = await client.getAll().prefix(keyPrefix(prefix)).exec();
  const entries = new Map<string, Versioned>();
  for (const kv of response.kvs) {
    entries.set(keyOf(prefix, kv.key.toString()), {
      value: kv.value.toString(),
      seq: Number(kv.mod_revision),
    });
  }
  return { entries, revision: Number(response.header.revision) };
}

/**
 * A watch on the prefix from `fromRevision`, feeding the sink. etcd3 resumes a watch by itself
 * after its stream drops (from the revision after the last it saw), so a disconnect is a signal,
 * not a loss; a cancel is the end of the watch. Without an `error` listener the emitter throws.
 */
async function watchFrom(
  client: Etcd3,
  prefix: string,
  fromRevision: number,
  sink: Sink,
  onCancel: () => void,
): Promise<Watcher> {
  const watcher = client.watch().prefix(keyPrefix(prefix)).startRevision(String(fromRevision)).watcher();
  const apply = (kv: IKeyValue, deleted: boolean) =>
    sink.apply(keyOf(prefix, kv.key.toString()), deleted ? null : kv.value.toString(), Number(kv.mod_revision));
  watcher.on('put', (kv) => apply(kv, false));
  watcher.on('delete', (kv) => apply(kv, true));
  watcher.on('disconnected', (error: Error) => sink.signal('disconnect', error.message));
  let connectedOnce = false;
  watcher.on('connected', () => {
    if (connectedOnce) sink.signal('reconnect');
    connectedOnce = true;
  });
  watcher.on('error', (error: Error) => {
    // A compaction past the watch's next revision arrives as "Watcher canceled: " (empty reason).
    sink.signal('cancel', error.message);
    onCancel();
  });
  await new Promise<void>((resolve, reject) => {
    watcher.once('connected', () => resolve());
    watcher.once('error', reject);
  });
  return watcher;
}

/** The informer idiom as the quickstart shows it: list the prefix, then watch from revision + 1. */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const client = etcdClient(endpoint);
  const listing = await list(client, prefix);
  for (const [key, { value, seq }] of listing.entries) sink.apply(key, value, seq);
  const watcher = await watchFrom(client, prefix, listing.revision + 1, sink, () => {});
  return {
    close: async () => {
      await watcher.cancel().catch(() => {});
      client.close();
    },
  };
};

/**
 * What client-go's reflector does when its watch ends ("too old resource version"): list
 * again, and watch from the new listing's revision + 1. A cancelled watch delivers nothing more,
 * so each cancel means one relist.
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const client = etcdClient(endpoint);
  let watcher: Watcher | undefined;
  let open = true;
  const relist = async (first: boolean): Promise<void> => {
    const listing = await list(client, prefix);
    sink.replace(listing.entries);
    if (!first) sink.signal('relist', `at revision ${listing.revision}, ${listing.entries.size} keys`);
    watcher = await watchFrom(client, prefix, listing.revision + 1, sink, () => relistSoon(0));
  };
  // A relist that fails (the server is down) is tried again: a careful consumer never stops.
  const relistSoon = (delayMs: number) =>
    setTimeout(() => {
      if (!open) return;
      relist(false).catch((error: Error) => {
        sink.signal('error', `relist: ${error.message}`);
        relistSoon(RELIST_RETRY_MS);
      });
    }, delayMs);
  await relist(true);
  return {
    close: async () => {
      open = false;
      await watcher?.cancel().catch(() => {});
      client.close();
    },
  };
};
