/**
 * The broker's Subscriber without QUIC: its stream is a fake sink whose writes
 * stay in flight until the test releases them, and its events come from the
 * real Topic and CompactedTable. What each mode does with a full queue, how
 * writes are batched, resumes and digests, and the counters it reports.
 */
import { jest } from '@jest/globals';
import { encodeDigest, encodeSyncEnd, ErrorCode, SyncKind } from '@state-divergence/protocol';
import { lastWrites, SubscriberStats, subscriberReports } from '@state-divergence/broker/internal';
import { EVENT_BYTES, LAG_BYTES, setup, show, subscribe, SYNC_END_BYTES, tick } from './fixtures/fake-subscriber.js';

/** A subscriber mark at any time (the broker's Date.now). */
const mark = (what: string, offset: number) => ({ at: expect.any(Number), what, offset });

describe('Subscriber: batching and the writer', () => {
  test('events published in one tick go out together on the next, at most batchMaxEvents per write, one write in flight at a time', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'lossy', queueCapacity: 10, batchMaxEvents: 3 });
    publish(0, 1, 2, 3, 4, 5, 6);
    expect(sink.writes).toHaveLength(0); // deferred to the next turn of the event loop
    await tick();
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2']]);
    expect(subscriber.counters()).toMatchObject({ queued: 4, delivered: 0, dropped: 0, lastAccepted: 7 });
    await tick();
    expect(sink.writes).toHaveLength(1); // the next batch waits for the write in flight
    await sink.release();
    expect(subscriber.counters().delivered).toBe(3);
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 4 k3', 'event 5 k4', 'event 6 k5']);
    await sink.release();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 7 k6']);
    await sink.release();
    expect(sink.writes).toHaveLength(3);
    expect(sink.maxInFlight).toBe(1);
    expect(sink.bytes).toEqual([3 * EVENT_BYTES, 3 * EVENT_BYTES, EVENT_BYTES]);
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 7, dropped: 0, lastAccepted: 7 });
    expect(subscriber.idle).toBe(true);
  });

  test('a frozen subscriber parks only its own writer: publishing never waits, and a healthy subscriber on the same topic gets everything', async () => {
    const {
      topic,
      publish,
      subscriber: frozen,
      sink: frozenSink,
    } = setup({ mode: 'lossy', queueCapacity: 8, batchMaxEvents: 4, name: 'frozen' });
    const healthy = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 4, autoRelease: true, name: 'healthy' });
    for (let round = 0; round < 5; round++) {
      publish(0, 1, 2, 3); // topic.publish is synchronous: it returns while the frozen write is still in flight
      await tick();
    }
    expect(healthy.sink.frames).toEqual(Array.from({ length: 20 }, (_, i) => `event ${i + 1} k${i % 4}`));
    expect(healthy.subscriber.counters()).toMatchObject({ queued: 0, delivered: 20, dropped: 0, lastAccepted: 20 });
    expect(frozenSink.frames).toEqual(['event 1 k0', 'event 2 k1', 'event 3 k2', 'event 4 k3']);
    expect(frozenSink.inFlight).toBe(1);
    expect(frozen.counters()).toMatchObject({ queued: 8, delivered: 0, dropped: 8, lastAccepted: 12 });
    expect(frozen.report().droppedRanges).toEqual([[13, 20]]);
  });

  test('control frames (an opening snapshot) are written at once, ahead of queued events, and never counted or dropped', async () => {
    const { subscriber, sink, publish, topic } = setup({ mode: 'lossy', queueCapacity: 1, batchMaxEvents: 4 });
    publish(0);
    subscriber.sendControl(...topic.table.stateFramesSince(0, true), encodeSyncEnd(SyncKind.snapshot, 1));
    expect(sink.writes.map((w) => w.map(show))).toEqual([['state 1 k0', 'syncEnd snapshot 1', 'event 1 k0']]);
    await sink.release();
    subscriber.sendControl(encodeSyncEnd(SyncKind.snapshot, 1), encodeSyncEnd(SyncKind.snapshot, 1));
    expect(sink.writes).toHaveLength(2);
    await sink.release();
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 1, dropped: 0, lastAccepted: 1 });
  });

  test('a digest request is built when asked for and goes out right behind the events queued before it, in the same write; later events follow', async () => {
    const { subscriber, sink, publish, topic } = setup({ mode: 'resync', queueCapacity: 10, batchMaxEvents: 2 });
    publish(0, 1, 2);
    let built = 0;
    subscriber.requestDigest(() => {
      built += 1;
      return encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size);
    });
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1']);
    expect(built).toBe(1); // the broker's state at the request: head 3, 3 live keys
    publish(3);
    await sink.release();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 3 k2', 'digest 3 3', 'event 4 k3']);
    expect(built).toBe(1);
    await sink.release();
    expect(sink.writes).toHaveLength(2);
  });

  test('under a queue that never empties, the digest still goes out right after the events queued before the request', async () => {
    // Found by review: the digest used to wait for an empty queue, so a subscriber that is always a little behind never
    // got one.
    const { subscriber, sink, publish, topic } = setup({ mode: 'lossless', queueCapacity: 100, batchMaxEvents: 4 });
    publish(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    await tick(); // events 1-4 in flight, 5-10 queued
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    );
    for (let round = 0; round < 4; round++) {
      // a batch's worth every time a write completes: the queue never empties
      publish(10 + 4 * round, 11 + 4 * round, 12 + 4 * round, 13 + 4 * round);
      expect(subscriber.queued).toBeGreaterThan(0);
      await sink.release();
    }
    const frames = sink.frames;
    expect(frames).toContain('digest 10 10');
    expect(frames.slice(0, frames.indexOf('digest 10 10'))).toEqual(
      Array.from({ length: 10 }, (_, i) => `event ${i + 1} k${i}`),
    );
    expect(frames[frames.indexOf('digest 10 10') + 1]).toBe('event 11 k10');
    expect(subscriber.queued).toBeGreaterThan(0);
  });

  test('resync: a digest whose queue a delta replaced is rebuilt right after that delta, at the head it brings the subscriber to', async () => {
    const { subscriber, sink, publish, topic } = setup({ mode: 'resync', queueCapacity: 3, batchMaxEvents: 2 });
    publish(0, 1);
    await tick(); // 1 and 2 in flight
    publish(2, 3);
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    ); // at head 4
    publish(4, 5); // 5 fills the queue, 6 overflows: the events the digest waited on are discarded
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual([
      'lag 3..6',
      'state 3 k2',
      'state 4 k3',
      'state 5 k4',
      'state 6 k5',
      'syncEnd delta 6',
      'digest 6 6',
    ]);
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    );
    await sink.release();
    expect(sink.writes[2]!.map(show)).toEqual(['digest 6 6']);
  });

  test('a failed write ends the subscriber: queue cleared, later events ignored, room announced, reported as endedEarly', async () => {
    const { subscriber, sink, publish, logs, rooms } = setup({ mode: 'lossless', queueCapacity: 2, batchMaxEvents: 1 });
    publish(0, 1);
    await tick();
    const roomsBefore = rooms();
    await sink.fail('stream reset');
    expect(subscriber.endedEarly).toBe('write failed: stream reset');
    expect(rooms()).toBe(roomsBefore + 1);
    expect(subscriber.hasRoom).toBe(true);
    publish(2, 3, 4);
    await tick();
    expect(sink.writes).toHaveLength(1);
    expect(subscriber.report()).toMatchObject({
      queued: 0,
      delivered: 0,
      dropped: 0,
      lastAccepted: 2,
      endedEarly: 'write failed: stream reset',
    });
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 40,
        subscriber: 'consumer-1',
        reason: 'write failed: stream reset',
        msg: 'subscriber ended',
      }),
    );
    subscriber.end('again');
    expect(subscriber.endedEarly).toBe('write failed: stream reset');
  });
});

describe('Subscriber: a full queue in each mode', () => {
  test('lossy: a full queue drops the new event and keeps the old ones; drops are recorded as inclusive runs and nobody is told', async () => {
    const { subscriber, sink, publish, logs } = setup({ mode: 'lossy', queueCapacity: 2, batchMaxEvents: 1 });
    publish(0);
    await tick(); // event 1 in flight, never acknowledged yet
    publish(1, 2, 3, 4); // 2 and 3 fill the queue; 4 and 5 are dropped
    expect(subscriber.hasRoom).toBe(false);
    await sink.release(); // event 2 goes out; 3 stays queued
    publish(5, 6); // 6 fills the queue again; 7 is dropped
    await sink.releaseAll();
    await tick();
    await sink.releaseAll();
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1', 'event 3 k2', 'event 6 k5']);
    expect(subscriber.report()).toEqual({
      queued: 0,
      delivered: 4,
      dropped: 3,
      bytesSent: sink.bytes.reduce((a, b) => a + b, 0), // what the stream got, to the byte
      blockedWrites: [],
      // Each run of drops, on the broker's clock: the timeline draws them.
      marks: [mark('subscribed', 0), mark('drops started', 4), mark('drops ended', 6), mark('drops started', 7)],
      marksDropped: 0,
      lastAccepted: 6,
      droppedRanges: [
        [4, 5],
        [7, 7],
      ],
      maxQueued: 2,
      endedEarly: null,
      disconnectedAt: null,
      disconnects: 0,
      lags: 0,
      resumes: 0,
      resyncBytes: 0,
      resyncFrames: 0,
      replayedEvents: 0, // no log in this mode: nothing is replayed or back-filled
      replayBytes: 0,
      backfills: 0,
      transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
      fullSnapshotBytes: 0,
      discarded: 0,
    });
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'drops started',
        subscriber: 'consumer-1',
        policy: 'drop-new',
        firstOffset: 4,
        queued: 2,
      }),
    );
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'drops ended', subscriber: 'consumer-1', dropped: 2, resumedAt: 6 }),
    );
  });

  test("lossless: a full queue has no room, the topic's waitForRoom holds until a batch is handed to the stream, and offer refuses instead of queueing", async () => {
    const { topic, subscriber, sink, publish, rooms } = setup({
      mode: 'lossless',
      queueCapacity: 2,
      batchMaxEvents: 2,
    });
    publish(0, 1);
    await tick(); // events 1 and 2 in flight
    publish(2, 3);
    expect(subscriber.hasRoom).toBe(false);
    expect(topic.hasRoom()).toBe(false);
    const room = topic.waitForRoom();
    expect(room).toBeInstanceOf(Promise);
    let woke = false;
    void room?.then(() => (woke = true));
    expect(subscriber.offer(5, Buffer.alloc(0))).toBe(false); // the Topic never gets here in lossless: it waits first
    expect(subscriber.counters()).toMatchObject({ queued: 2, delivered: 0, dropped: 0, lastAccepted: 4 });
    await tick();
    expect(woke).toBe(false);
    const roomsBefore = rooms();
    await sink.release(); // 3 and 4 are handed to the stream: room again, though they are still in flight
    expect(rooms()).toBe(roomsBefore + 1);
    expect(woke).toBe(true);
    expect(subscriber.hasRoom).toBe(true);
    expect(sink.inFlight).toBe(1);
    expect(topic.waitForRoom()).toBeUndefined();
    await sink.release();
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1', 'event 3 k2', 'event 4 k3']);
    expect(subscriber.report()).toMatchObject({
      delivered: 4,
      dropped: 0,
      droppedRanges: [],
      maxQueued: 2,
      lags: 0,
      discarded: 0,
    });
  });

  test('resync: overflow discards the queue and lags; when the stream takes writes again it gets LAG, the delta with tombstones, SYNC_END, then live events', async () => {
    const { subscriber, sink, publish, topic, logs, rooms } = setup({
      mode: 'resync',
      queueCapacity: 3,
      batchMaxEvents: 2,
    });
    publish(0, 1);
    await tick(); // events 1 and 2 in flight: the stream has taken everything up to 2
    publish(2, 0, 3); // queue full
    const roomsBefore = rooms();
    publish(1); // offset 6 overflows: the three queued events are discarded
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 0, dropped: 0, lastAccepted: 5 });
    expect(rooms()).toBe(roomsBefore + 1);
    expect(subscriber.hasRoom).toBe(true);
    expect(subscriber.idle).toBe(false);
    publish('-2', 4, 5, 6, 7); // lagged: nothing queued, nothing dropped, however long the stall
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 0, dropped: 0, lastAccepted: 5 });
    await tick();
    expect(sink.writes).toHaveLength(1);
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual([
      'lag 3..11',
      'state 4 k0',
      'state 5 k3',
      'state 6 k1',
      'state 7 k2 deleted',
      'state 8 k4',
      'state 9 k5',
      'state 10 k6',
      'state 11 k7',
      'syncEnd delta 11',
    ]);
    const recoveryBytes = LAG_BYTES + 8 * EVENT_BYTES + SYNC_END_BYTES;
    expect(sink.bytes[1]).toBe(recoveryBytes);
    expect(topic.table.fullSnapshotBytes).toBe(7 * EVENT_BYTES);
    publish(8);
    await sink.release();
    await tick();
    expect(sink.writes[2]!.map(show)).toEqual(['event 12 k8']);
    await sink.release();
    expect(subscriber.report()).toEqual({
      queued: 0,
      delivered: 3,
      dropped: 0,
      bytesSent: sink.bytes.reduce((a, b) => a + b, 0), // what the stream got, to the byte
      blockedWrites: [],
      marks: [mark('subscribed', 0), mark('lagged', 2), mark('delta sent', 11)],
      marksDropped: 0,
      lastAccepted: 12,
      droppedRanges: [],
      maxQueued: 3,
      endedEarly: null,
      disconnectedAt: null,
      disconnects: 0,
      lags: 1,
      resumes: 0,
      resyncBytes: recoveryBytes,
      resyncFrames: 10,
      replayedEvents: 0, // no log in this mode: nothing is replayed or back-filled
      replayBytes: 0,
      backfills: 0,
      transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
      fullSnapshotBytes: 7 * EVENT_BYTES,
      discarded: 3,
    });
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'lagged', subscriber: 'consumer-1', from: 2, discarded: 3, head: 6 }),
    );
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'delta sent', subscriber: 'consumer-1', from: 2, head: 11, keys: 8 }),
    );
    expect(subscriber.idle).toBe(true);
  });

  test('resync: each overflow after a recovery is a new lag, and each recovery adds its own bytes and the snapshot it saved', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'resync', queueCapacity: 1, batchMaxEvents: 1 });
    publish(0);
    await tick(); // 1 in flight
    publish(1, 2); // 2 queued, 3 overflows
    await sink.release(); // LAG 2..3, k1@2, k2@3, SYNC_END 3: in flight
    publish(3, 4); // 4 queued, 5 overflows: lagged from 3
    await sink.release(); // LAG 4..5, k3@4, k4@5, SYNC_END 5
    await sink.release();
    expect(sink.frames).toEqual([
      'event 1 k0',
      'lag 2..3',
      'state 2 k1',
      'state 3 k2',
      'syncEnd delta 3',
      'lag 4..5',
      'state 4 k3',
      'state 5 k4',
      'syncEnd delta 5',
    ]);
    const oneRecovery = LAG_BYTES + 2 * EVENT_BYTES + SYNC_END_BYTES;
    expect(subscriber.report()).toMatchObject({
      lags: 2,
      discarded: 2,
      resyncFrames: 8,
      resyncBytes: 2 * oneRecovery,
      fullSnapshotBytes: 3 * EVENT_BYTES + 5 * EVENT_BYTES,
      delivered: 1,
      lastAccepted: 5,
    });
  });
});

describe('Subscriber: resume requests', () => {
  test("a client's resume gets the delta after its offset and SYNC_END, without a LAG frame, and what was queued is discarded", async () => {
    const { subscriber, sink, publish, logs } = setup({ mode: 'resync', queueCapacity: 10, batchMaxEvents: 2 });
    publish(0, 1, 2);
    await tick(); // 1 and 2 in flight, 3 queued
    subscriber.resume(1);
    expect(subscriber.counters().queued).toBe(0);
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual(['state 2 k1', 'state 3 k2', 'syncEnd delta 3']);
    await sink.release();
    expect(subscriber.report()).toMatchObject({
      lags: 0,
      resumes: 1,
      discarded: 1,
      resyncFrames: 3,
      resyncBytes: 2 * EVENT_BYTES + SYNC_END_BYTES,
      delivered: 2,
      lastAccepted: 3,
    });
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'resume requested', fromOffset: 1 }));
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'resuming', from: 1 }));
  });

  test('a resume from beyond what was handed to the stream starts the delta at the last offset written', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'lossy', queueCapacity: 10, batchMaxEvents: 1 });
    publish(0, 1, 2);
    await tick(); // 1 in flight
    subscriber.resume(99);
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual(['state 2 k1', 'state 3 k2', 'syncEnd delta 3']);
  });

  test('resumes while lagged widen the delta to the earliest offset asked for, never narrow it, and keep the LAG signal', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'resync', queueCapacity: 2, batchMaxEvents: 2 });
    publish(0, 1);
    await tick(); // 1 and 2 in flight
    publish(2, 3, 4); // 3 and 4 queued, 5 overflows: lagged from 2
    subscriber.resume(0);
    subscriber.resume(1); // a later resume before the delta goes out does not narrow it
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual([
      'lag 1..5',
      'state 1 k0',
      'state 2 k1',
      'state 3 k2',
      'state 4 k3',
      'state 5 k4',
      'syncEnd delta 5',
    ]);
    await sink.release();
    expect(subscriber.report()).toMatchObject({ lags: 1, resumes: 2, discarded: 2, resyncFrames: 7 });
  });
});

describe("Subscriber: lossy mode's overflow policies", () => {
  test('drop-oldest: a full queue evicts its oldest unsent event and keeps the new one; evicted offsets are recorded as inclusive runs, logged once per run', async () => {
    const { subscriber, sink, publish, logs } = setup({
      mode: 'lossy',
      overflow: 'drop-oldest',
      queueCapacity: 3,
      batchMaxEvents: 1,
    });
    publish(0);
    await tick(); // event 1 in flight: handed to the stream, never evicted
    publish(1, 2, 3); // 2, 3, 4 fill the queue
    publish(4, 5); // 5 evicts 2, 6 evicts 3
    expect(subscriber.counters()).toMatchObject({ queued: 3, delivered: 0, dropped: 2, lastAccepted: 6 });
    await sink.release(); // event 4 goes out; 5 and 6 stay
    publish(6); // room: accepted without evicting, the run of drops ends
    publish(7, 8); // 8 evicts 5, 9 evicts 6
    for (let i = 0; i < 4; i++) {
      await sink.release();
      await tick();
    }
    expect(sink.frames).toEqual(['event 1 k0', 'event 4 k3', 'event 7 k6', 'event 8 k7', 'event 9 k8']);
    expect(subscriber.report()).toMatchObject({
      delivered: 5,
      dropped: 4,
      droppedRanges: [
        [2, 3],
        [5, 6],
      ],
      lastAccepted: 9,
      maxQueued: 3,
      disconnects: 0,
      discarded: 0,
    });
    const lines = logs.filter(
      (line) => typeof line === 'object' && line !== null && 'msg' in line && String(line.msg).startsWith('drops '),
    );
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'drops started', policy: 'drop-oldest', firstOffset: 2, queued: 3 }),
      expect.objectContaining({ msg: 'drops ended', policy: 'drop-oldest', dropped: 2, resumedAt: 7 }),
      expect.objectContaining({ msg: 'drops started', policy: 'drop-oldest', firstOffset: 5, queued: 3 }),
    ]);
  });

  test('drop-oldest: a frozen subscriber wakes to the newest events; a long stall is one range and one log line', async () => {
    const { subscriber, sink, publish, logs } = setup({
      mode: 'lossy',
      overflow: 'drop-oldest',
      queueCapacity: 4,
      batchMaxEvents: 8,
    });
    publish(0);
    await tick(); // event 1 in flight, and the stream takes nothing more
    publish(...Array.from({ length: 999 }, (_, i) => (i + 1) % 50));
    expect(subscriber.report()).toMatchObject({
      queued: 4,
      dropped: 995,
      droppedRanges: [[2, 996]],
      lastAccepted: 1000,
    });
    await sink.release();
    expect(sink.frames).toEqual(['event 1 k0', 'event 997 k46', 'event 998 k47', 'event 999 k48', 'event 1000 k49']);
    expect(
      logs.filter((line) => typeof line === 'object' && line !== null && 'msg' in line && line.msg === 'drops started'),
    ).toHaveLength(1);
  });

  test('drop-new stays as it was: the new event is lost, the queue keeps the oldest', async () => {
    const { subscriber, sink, publish } = setup({
      mode: 'lossy',
      overflow: 'drop-new',
      queueCapacity: 2,
      batchMaxEvents: 4,
    });
    publish(0);
    await tick();
    publish(1, 2, 3, 4);
    await sink.release();
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1', 'event 3 k2']);
    expect(subscriber.report().droppedRanges).toEqual([[4, 5]]);
  });

  test('disconnect: an overflow ends the subscription with ERROR slowConsumer; what was queued and the overflowing event are dropped; the write in flight still counts; the name is free', async () => {
    const { topic, subscriber, sink, publish, logs } = setup({
      mode: 'lossy',
      overflow: 'disconnect',
      queueCapacity: 2,
      batchMaxEvents: 1,
    });
    publish(0);
    await tick(); // event 1 in flight
    publish(1, 2); // 2 and 3 queued: full
    expect(sink.farewells).toEqual([]);
    publish(3); // 4 overflows
    expect(sink.farewells.map(show)).toEqual([`error ${ErrorCode.slowConsumer}`]);
    const farewell = sink.farewells[0];
    expect(farewell?.type === 'error' && farewell.message).toMatch(
      /^slow consumer: consumer-1's queue of 2 events was full at offset 4; 3 events dropped/,
    );
    expect(subscriber.endedEarly).toMatch(/^slow consumer/);
    expect(topic.subscribers.has('consumer-1')).toBe(false);
    expect(topic.hasRoom()).toBe(true);
    publish(4); // nobody to drop it for: the name has no subscription
    await sink.release(); // the write in flight completes: its event was delivered
    await tick();
    expect(sink.writes).toHaveLength(1);
    expect(subscriber.report()).toMatchObject({
      queued: 0,
      delivered: 1,
      dropped: 3,
      droppedRanges: [[2, 4]],
      lastAccepted: 3,
      disconnects: 1,
      endedEarly: subscriber.endedEarly,
    });
    expect(lastWrites(topic, 6)).toMatchObject({
      head: 5,
      dropped: { 'consumer-1': [[2, 4]] },
      disconnectedAt: { 'consumer-1': 4 },
    });
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'slow consumer disconnected',
        subscriber: 'consumer-1',
        firstOffset: 2,
        lastOffset: 4,
        dropped: 3,
        disconnects: 1,
      }),
    );
    expect(logs).not.toContainEqual(expect.objectContaining({ msg: 'drops started' }));
  });

  test('disconnect: the same name subscribes again; its figures carry on across subscriptions and a second overflow adds to them', async () => {
    const { topic, publish } = setup({ mode: 'lossy', overflow: 'disconnect', queueCapacity: 2, batchMaxEvents: 1 });
    publish(0);
    await tick();
    publish(1, 2, 3); // 4 overflows: 2-4 dropped, disconnected at 4
    publish(4); // 5: skipped by whoever subscribes next at latest
    const again = subscribe(topic, { queueCapacity: 2, batchMaxEvents: 1 });
    expect(topic.subscribers.get('consumer-1')).toBe(again.subscriber);
    expect(lastWrites(topic, 16).disconnectedAt).toEqual({});
    publish(5, 6);
    await tick();
    await again.sink.release();
    await again.sink.release();
    expect(again.sink.frames).toEqual(['event 6 k5', 'event 7 k6']);
    // The first subscription's write in flight was never completed: only the second's deliveries count so far.
    expect(again.subscriber.report()).toMatchObject({
      delivered: 2,
      dropped: 3,
      droppedRanges: [[2, 4]],
      disconnects: 1,
      endedEarly: null,
      lastAccepted: 7,
    });
    publish(7);
    await tick(); // 8 in flight, and the stream takes nothing more
    publish(8, 9, 10); // 9 and 10 queued, 11 overflows
    expect(again.sink.farewells.map(show)).toEqual([`error ${ErrorCode.slowConsumer}`]);
    expect(subscriberReports(topic)['consumer-1']).toMatchObject({
      dropped: 6,
      droppedRanges: [
        [2, 4],
        [9, 11],
      ],
      disconnects: 2,
      queued: 0,
    });
    expect(lastWrites(topic, 16)).toMatchObject({ head: 11, disconnectedAt: { 'consumer-1': 11 } });
  });

  test("lastWrites: each key's last-write offset as a Float64Array of the keyspace, each name's drop ranges", async () => {
    const { topic, publish } = setup({ mode: 'lossy', queueCapacity: 1, batchMaxEvents: 1 });
    publish(2, 0, 2, '-3');
    await tick(); // the deferred pump runs inside the test, not after it
    const answer = lastWrites(topic, 5);
    expect(answer.offsets).toBeInstanceOf(Float64Array);
    expect([...answer.offsets]).toEqual([2, 0, 3, 4, 0]);
    // capacity 1: offset 1 queued, the rest dropped
    expect(answer).toMatchObject({ head: 4, dropped: { 'consumer-1': [[2, 4]] }, disconnectedAt: {} });
  });
});

describe('Subscriber: the writer after a write completes', () => {
  test('events offered in the same turn as a completion go out together with those queued before it, in one write', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 10, batchMaxEvents: 10 });
    publish(0);
    await tick();
    publish(1, 2); // queued behind the write in flight
    const released = sink.release();
    queueMicrotask(() => publish(3, 4)); // right behind the completion, before the next turn
    await released;
    // Writing at once on completion would have sent k1, k2 alone and k3, k4 in a third write.
    expect(sink.writes.map((w) => w.map(show))).toEqual([
      ['event 1 k0'],
      ['event 2 k1', 'event 3 k2', 'event 4 k3', 'event 5 k4'],
    ]);
  });
});

describe('Subscriber: what it handed to the transport', () => {
  test('bytesSent counts every byte handed to the stream, the write in flight included; a write pending 100 ms or more is a blocked write, with what was sent before it', async () => {
    let now = 1_000_000; // the broker's clock, moved by hand: no test here waits on real time
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const { subscriber, sink, publish } = setup({ mode: 'lossy', queueCapacity: 10, batchMaxEvents: 2 });
      publish(0, 1);
      await tick();
      expect(subscriber.counters().bytesSent).toBe(2 * EVENT_BYTES); // in flight, already counted
      now += 99;
      await sink.release(); // 99 ms: slow, not blocked
      expect(subscriber.report().blockedWrites).toEqual([]);
      publish(2, 3, 4);
      await tick();
      now += 150;
      // Still pending: reported as it stands, so a frozen consumer's blocked write shows before its thaw.
      expect(subscriber.report().blockedWrites).toEqual([
        { startedAt: 1_000_099, bytesBefore: 2 * EVENT_BYTES, bytes: 2 * EVENT_BYTES, ms: 150 },
      ]);
      now += 50;
      await sink.release(); // taken after 200 ms; the third event goes out at once
      now += 1;
      await sink.release();
      expect(subscriber.report().blockedWrites).toEqual([
        { startedAt: 1_000_099, bytesBefore: 2 * EVENT_BYTES, bytes: 2 * EVENT_BYTES, ms: 200 },
      ]);
      expect(subscriber.counters()).toMatchObject({ delivered: 5, bytesSent: 5 * EVENT_BYTES });
    } finally {
      clock.mockRestore();
    }
  });
});

describe('SubscriberStats: the marks kept', () => {
  test("the first 512 marks are kept and every later one is counted, so a flapping consumer's lost `drops ended` is known to be lost", () => {
    const stats = new SubscriberStats();
    stats.subscribed(0);
    for (let offset = 1; offset <= 300; offset += 1) {
      stats.mark('drops started', offset);
      stats.mark('drops ended', offset);
    }
    const report = stats.report(0);
    expect(report.marks).toHaveLength(512);
    expect(report.marks.at(-1)).toEqual(mark('drops started', 256));
    expect(report.marksDropped).toBe(601 - 512);
  });
});
