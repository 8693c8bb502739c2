import type { Redis } from 'ioredis';
import { sleep } from '@state-divergence/runtime';
import { decodeStored } from '../change-codec.js';
import { reportConnection } from '../redis-pubsub/connection-signals.js';
import { redisAt } from '../servers/redis.js';
import type { Idiom, Sink, StartedConsumer, Versioned } from '../target-system.js';
import { decodeEntry, type StreamChange } from './entry.js';
import { stateName, streamName } from './names.js';

/** The docs' reading loop: up to 1000 entries a call, blocking 5 s when there are none. */
const READ_COUNT = 1000;
const BLOCK_MS = 5000;
const RETRY_MS = 100;

type XreadReply = [string, [string, string[]][]][] | null;

async function readAfter(client: Redis, prefix: string, lastId: string): Promise<StreamChange[]> {
  const reply = (await client.xread(
    'COUNT',
    READ_COUNT,
    'BLOCK',
    BLOCK_MS,
    'STREAMS',
    streamName(prefix),
    lastId,
  )) as XreadReply;
  return (reply?.[0]?.[1] ?? []).map(([id, fields]) => decodeEntry(id, fields));
}

/**
 * Runs `step` until closed: a failed read (the connection dropped; ioredis retries each command
 * 20 times, then fails it) is reported and the loop goes on after a pause.
 */
function readLoop(client: Redis, sink: Sink, step: () => Promise<void>): StartedConsumer {
  let open = true;
  const loop = (async () => {
    while (open) {
      try {
        await step();
      } catch (error) {
        if (!open) break;
        sink.signal('error', (error as Error).message);
        await sleep(RETRY_MS);
      }
    }
  })();
  return {
    close: async () => {
      open = false;
      // The blocked XREAD never answers now: drop the connection, which fails it.
      client.disconnect();
      await loop;
    },
  };
}

/** The docs' consumer: XREAD from the last id it read, from the start of the stream. */
export const naive: Idiom = async (endpoint, prefix, sink) => {
  const client = redisAt(endpoint, { lazyConnect: true });
  reportConnection(client, sink);
  await client.connect();
  let lastId = '0-0';
  return readLoop(client, sink, async () => {
    for (const change of await readAfter(client, prefix, lastId)) {
      sink.apply(change.key, change.value, change.seq);
      lastId = change.id;
    }
  });
};

interface Snapshot {
  entries: Map<string, Versioned>;
  lastId: string;
  lastSeq: number;
}

/** The hash of current values and the stream's newest entry, read in one MULTI: one moment. */
async function snapshot(client: Redis, prefix: string): Promise<Snapshot> {
  const replies = await client
    .multi()
    .hgetall(stateName(prefix))
    .xrevrange(streamName(prefix), '+', '-', 'COUNT', 1)
    .exec();
  const [[hashError, hash], [rangeError, range]] = (replies ?? [
    [null, {}],
    [null, []],
  ]) as [[Error | null, unknown], [Error | null, unknown]];
  const failure = replies === null ? 'the MULTI was aborted' : (hashError ?? rangeError)?.message;
  if (failure !== undefined) throw new Error(`snapshot failed: ${failure}`);
  const entries = new Map<string, Versioned>();
  for (const [key, stored] of Object.entries(hash as Record<string, string>)) entries.set(key, decodeStored(stored));
  const newest = (range as [string, string[]][])[0];
  if (newest === undefined) return { entries, lastId: '0-0', lastSeq: 0 };
  const change = decodeEntry(newest[0], newest[1]);
  return { entries, lastId: change.id, lastSeq: change.seq };
}

/** XINFO STREAM's word on where the stream now starts: the evidence a trim leaves. */
async function streamStart(client: Redis, prefix: string): Promise<string> {
  const info = (await client.xinfo('STREAM', streamName(prefix))) as unknown[];
  const field = (name: string) => info[info.indexOf(name) + 1];
  const first = String(field('recorded-first-entry-id'));
  return `recorded-first-entry-id ${first}, entries-added ${String(field('entries-added'))}`;
}

/**
 * XREAD from the last id silently resumes at the oldest entry still there once MAXLEN has
 * trimmed past that id (Redis gives no error, and 7.0's max-deleted-entry-id stays 0-0). The
 * writer's seq in every entry is gapless, so an entry that does not follow the last one read says
 * entries were trimmed unread: then relist from the hash and read on from the snapshot's entry.
 */
export const careful: Idiom = async (endpoint, prefix, sink) => {
  const client = redisAt(endpoint, { lazyConnect: true });
  reportConnection(client, sink);
  await client.connect();
  let position = await snapshot(client, prefix);
  sink.replace(position.entries);
  return readLoop(client, sink, async () => {
    for (const change of await readAfter(client, prefix, position.lastId)) {
      if (change.seq !== position.lastSeq + 1) {
        const start = await streamStart(client, prefix);
        sink.signal(
          'trimmed',
          `after ${position.lastId} (seq ${position.lastSeq}) came ${change.id} (seq ${change.seq}); ${start}`,
        );
        position = await snapshot(client, prefix);
        sink.replace(position.entries);
        sink.signal('relist', `at ${position.lastId} (seq ${position.lastSeq}), ${position.entries.size} keys`);
        return;
      }
      sink.apply(change.key, change.value, change.seq);
      position = { ...position, lastId: change.id, lastSeq: change.seq };
    }
  });
};
