import type { Redis } from 'ioredis';
import { decodeChange, type Change } from '../change-codec.js';
import { serialRelister } from '../serial-relist.js';
import type { Endpoint, Idiom, Sink } from '../target-system.js';
import { connectRedis, quitRedis, redisAt } from '../servers/redis.js';
import { reportConnection } from './connection-signals.js';
import { listKeys } from './listing.js';
import { channelName } from './names.js';

/** A subscriber as the quickstart makes one: ioredis's defaults (retry forever, resubscribe). */
function subscriberOf(endpoint: Endpoint): Redis {
  return redisAt(endpoint, { lazyConnect: true });
}

/** The quickstart: read every key, then SUBSCRIBE and apply each message. */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const reader = redisAt(endpoint, { lazyConnect: true });
  await connectRedis(reader);
  const listing = await listKeys(reader, prefix);
  for (const [key, { value, seq }] of listing.entries) sink.apply(key, value, seq);
  await quitRedis(reader);
  const subscriber = subscriberOf(endpoint);
  reportConnection(subscriber, sink);
  subscriber.on('message', (_channel: string, text: string) => {
    const change = decodeChange(text);
    sink.apply(change.key, change.value, change.seq);
  });
  await subscriber.connect();
  await subscriber.subscribe(channelName(prefix));
  return { close: () => quitRedis(subscriber) };
};

/**
 * Pub/sub delivers only to a connected subscriber: whatever was published while the connection
 * was down (the server cut it off, or restarted) is gone. So: subscribe first, then list, and
 * list again after every reconnect; messages that arrive during a listing wait, and those the
 * listing already holds (seq at or below its position, for a key it found) are dropped.
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const reader = redisAt(endpoint, { lazyConnect: true });
  reader.on('error', (error: Error) => sink.signal('error', `reader: ${error.message}`));
  await reader.connect();
  const subscriber = subscriberOf(endpoint);
  let waiting: Change[] | undefined = [];
  let open = true;

  const relist = async (first: boolean) => {
    waiting = [];
    // Subscribed again before listing: nothing published after the listing can be missed.
    if (!first) await subscriber.subscribe(channelName(prefix));
    const listing = await listKeys(reader, prefix);
    sink.replace(listing.entries);
    for (const change of waiting) {
      if (!listing.scanned.has(change.key) || change.seq > listing.seq) apply(sink, change);
    }
    waiting = undefined;
    if (!first) sink.signal('relist', `at seq ${listing.seq}, ${listing.entries.size} keys`);
  };
  const relister = serialRelister(relist, sink, () => open);

  reportConnection(subscriber, sink, () => relister.queue(false));
  subscriber.on('message', (_channel: string, text: string) => {
    const change = decodeChange(text);
    if (waiting === undefined) apply(sink, change);
    else waiting.push(change);
  });
  await subscriber.connect();
  await subscriber.subscribe(channelName(prefix));
  relister.queue(true);
  await relister.settled();
  return {
    close: async () => {
      open = false;
      await Promise.all([quitRedis(subscriber), quitRedis(reader)]);
    },
  };
};

function apply(sink: Sink, change: Change): void {
  sink.apply(change.key, change.value, change.seq);
}
