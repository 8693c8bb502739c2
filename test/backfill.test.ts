/**
 * A broker with a log, without QUIC: the Subscriber's back-filling writer over an in-memory
 * log with the DurableLog's contract (fixtures/fake-log.ts), the real Topic and CompactedTable.
 * A replay joins live delivery with no gap and no duplicate, costs one page of memory however
 * far back it starts, a full queue back-fills instead of dropping, a RESUME replays events, and
 * an offset retention discarded ends the subscription with tooOld.
 */
import { encodeDigest, ErrorCode } from '@state-divergence/protocol';
import { FakeLog } from './fixtures/fake-log.js';
import { subscribe, tick, topicWith } from './fixtures/fake-subscriber.js';

const events = (from: number, to: number, keys = 4): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `event ${from + i} k${(from + i - 1) % keys}`);
/** Publishes `count` changes, the key of offset o being (o - 1) % keys, so `events` names them. */
const feed = ({ topic, publish }: ReturnType<typeof topicWith>, count: number, keys = 4): number[] =>
  publish(...Array.from({ length: count }, (_, i) => (topic.headOffset + i) % keys));

describe('a replay from the log joins live delivery', () => {
  test('offset N: the events after N a page at a time, then live ones published during the replay, each once, in order', async () => {
    const log = new FakeLog();
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    feed(fed, 20);
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 100, batchMaxEvents: 4, replayAfter: 5 });
    expect(sink.frames).toEqual(events(6, 9)); // the first page goes out at once
    expect(subscriber.backfilling).toMatchObject({ from: 5, pages: 1, events: 4 });
    publish(0, 1, 2); // 21-23, while the replay runs: not queued, read from the log later
    expect(subscriber.queued).toBe(0);
    await sink.releaseAll();
    publish(3); // 24: live, through the queue
    await tick();
    await sink.releaseAll();
    expect(sink.frames).toEqual(events(6, 24));
    expect(subscriber.backfilling).toBeUndefined();
    expect(Math.max(...log.reads)).toBe(4);
    expect(subscriber.report()).toMatchObject({
      delivered: 19,
      dropped: 0,
      replayedEvents: 18,
      replayBytes: 18 * 46,
      backfills: 0,
      lastAccepted: 24,
    });
  });

  test('from far back (20,000 events) it costs one page: no read returns more than batchMaxEvents, nothing is queued meanwhile', async () => {
    const log = new FakeLog();
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    feed(fed, 20_000, 100);
    const { subscriber, sink } = subscribe(topic, {
      queueCapacity: 512,
      batchMaxEvents: 256,
      replayAfter: 0,
      autoRelease: true,
    });
    for (let round = 0; subscriber.backfilling !== undefined && round < 200; round++) {
      if (round % 10 === 0) feed(fed, 1, 100); // live changes keep arriving during the replay
      expect(subscriber.queued).toBe(0);
      await tick();
    }
    expect(subscriber.backfilling).toBeUndefined();
    expect(Math.max(...log.reads)).toBe(256);
    expect(sink.writes.every((write) => write.length <= 256)).toBe(true);
    const offsets = sink.writes.flat().map((frame) => (frame.type === 'event' ? frame.offset : -1));
    expect(offsets).toEqual(Array.from({ length: topic.headOffset }, (_, i) => i + 1));
  });

  test('earliest on a log that retention trimmed starts at the oldest retained offset', async () => {
    const log = new FakeLog({ retention: 5 });
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    feed(fed, 12);
    expect(log.oldest).toBe(8);
    const { sink } = subscribe(topic, {
      queueCapacity: 10,
      batchMaxEvents: 10,
      replayAfter: log.oldest - 1,
      autoRelease: true,
    });
    await tick();
    expect(sink.frames).toEqual(events(8, 12));
  });
});

describe('a full live queue back-fills from the log', () => {
  test('a frozen subscriber: no drop, its queue stays bounded, and when it reads again it gets every event in order, then live ones', async () => {
    const log = new FakeLog();
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    const { subscriber, sink, logs } = subscribe(topic, { queueCapacity: 3, batchMaxEvents: 2 });
    feed(fed, 2); // in flight: the write never completes while frozen
    await tick();
    feed(fed, 30);
    expect(subscriber.queued).toBe(0); // overflowed at the 4th queued event: let go, it is in the log
    expect(subscriber.report()).toMatchObject({ dropped: 0, backfills: 1, maxQueued: 3, discarded: 0 });
    // What a snapshot instead would have weighed: the table as it stood when the queue overflowed.
    const snapshotAtOverflow = subscriber.report().fullSnapshotBytes;
    expect(snapshotAtOverflow).toBeGreaterThan(0);
    expect(snapshotAtOverflow).toBe(topic.table.fullSnapshotBytes); // its few keys were all written by then
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'queue full: back-filling from the log', from: 2 }));
    await sink.releaseAll();
    publish(0);
    await tick();
    await sink.releaseAll();
    expect(sink.frames).toEqual(events(1, 33));
    expect(subscriber.report()).toMatchObject({
      delivered: 33,
      dropped: 0,
      droppedRanges: [],
      replayedEvents: 30,
      backfills: 1,
    });
    expect(Math.max(...log.reads)).toBe(2);
  });

  test('a digest asked for during a back-fill goes out right behind the events queued before it', async () => {
    const log = new FakeLog();
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 2, batchMaxEvents: 4 });
    publish(0);
    await tick();
    publish(1, 2, 3, 0, 1); // overflow: back-filling after 1
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    ); // head 6, 4 live keys
    publish(2, 3);
    await sink.releaseAll();
    expect(sink.frames).toEqual([...events(1, 6), 'digest 6 4', ...events(7, 8)]);
  });

  test('retention discarded what a slow subscriber still needs: ERROR tooOld with the oldest retained offset, then the end', async () => {
    const log = new FakeLog({ retention: 4 });
    const fed = topicWith({ mode: 'durable', log });
    const { topic, publish } = fed;
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 2, batchMaxEvents: 2 });
    publish(0, 1);
    await tick();
    feed(fed, 10); // back-filling after 2; the log keeps 9-12
    await sink.releaseAll();
    expect(sink.frames).toEqual(events(1, 2));
    expect(sink.farewells).toEqual([expect.objectContaining({ type: 'error', code: ErrorCode.tooOld, offset: 9 })]);
    expect(subscriber.endedEarly).toMatch(/needs the events after 2, but the log keeps only offsets from 9 on/);
    expect(subscriber.report()).toMatchObject({ disconnects: 1, disconnectedAt: 2, dropped: 0 });
  });
});

test('RESUME on a broker with a log replays the events after its offset, not a delta', async () => {
  const log = new FakeLog();
  const { topic, publish } = topicWith({ mode: 'durable', log });
  const { subscriber, sink } = subscribe(topic, { queueCapacity: 10, batchMaxEvents: 10, autoRelease: true });
  publish(0, 0, 0, 1);
  await tick();
  subscriber.resume(1);
  await tick();
  expect(sink.frames).toEqual([
    'event 1 k0',
    'event 2 k0',
    'event 3 k0',
    'event 4 k1',
    'event 2 k0',
    'event 3 k0',
    'event 4 k1',
  ]);
  expect(subscriber.report()).toMatchObject({ resumes: 1, replayedEvents: 3, lags: 0, resyncBytes: 0 });
});
