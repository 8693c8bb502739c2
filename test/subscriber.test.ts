/**
 * The broker's Subscriber without QUIC: its stream is a fake sink whose writes
 * stay in flight until the test releases them, and its events come from the
 * real Topic and CompactedTable. What each mode does with a full queue, how
 * writes are batched, resumes and digests, and the counters it reports.
 */
import pino from 'pino';
import { encodeDigest, encodePublish, encodeSyncEnd, FRAME_HEADER_LENGTH, FrameDecoder, SyncKind, type Change, type Frame, type Mode } from '@state-divergence/protocol';
import { Subscriber } from '../packages/broker/src/subscriber.js';
import { Topic } from '../packages/broker/src/topic.js';

/** A STATE or EVENT frame with 8 bytes of padding: header 5 + offset 8 + change 25 + padding 8. */
const EVENT_BYTES = 46;
const LAG_BYTES = 5 + 16;
const SYNC_END_BYTES = 5 + 9;

/** Lets setImmediate callbacks (the deferred pump) and settled writes run. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A stream sink: records each write, decoded on its own, and keeps it pending until released (or at once, with autoRelease). */
class FakeSink {
  readonly writes: Frame[][] = [];
  readonly bytes: number[] = [];
  private pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  maxInFlight = 0;

  constructor(private readonly autoRelease = false) {}

  readonly write = (bytes: Uint8Array): Promise<void> => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.from(bytes));
    const frames: Frame[] = [];
    for (let frame = decoder.next(); frame !== null; frame = decoder.next()) frames.push(frame);
    expect(decoder.pendingBytes).toBe(0); // a write holds whole frames only
    this.writes.push(frames);
    this.bytes.push(bytes.length);
    if (this.autoRelease) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.maxInFlight = Math.max(this.maxInFlight, this.pending.length);
    });
  };

  get inFlight(): number {
    return this.pending.length;
  }

  /** Completes the oldest write in flight, then lets the subscriber react. */
  async release(): Promise<void> {
    const next = this.pending.shift();
    if (next === undefined) throw new Error('no write in flight');
    next.resolve();
    await tick();
  }

  async releaseAll(): Promise<void> {
    while (this.pending.length > 0) await this.release();
  }

  async fail(message: string): Promise<void> {
    const next = this.pending.shift();
    if (next === undefined) throw new Error('no write in flight');
    next.reject(new Error(message));
    await tick();
  }

  /** Every frame written, in order, as a short readable string. */
  get frames(): string[] {
    return this.writes.flat().map(show);
  }
}

function show(frame: Frame): string {
  switch (frame.type) {
    case 'event':
      return `event ${frame.offset} k${frame.change.key}`;
    case 'state':
      return `state ${frame.offset} k${frame.change.key}${frame.change.deleted ? ' deleted' : ''}`;
    case 'lag':
      return `lag ${frame.from}..${frame.to}`;
    case 'syncEnd':
      return `syncEnd ${frame.kind === SyncKind.delta ? 'delta' : 'snapshot'} ${frame.offset}`;
    case 'digest':
      return `digest ${frame.offset} ${frame.liveKeys}`;
    default:
      return frame.type;
  }
}

interface Setup {
  mode: Mode;
  capacity: number;
  batchMaxEvents: number;
  autoRelease?: boolean;
  name?: string;
}

/** A topic of the given mode with one subscriber on a fake sink, joined at the head like client-session does. */
function subscribe(topic: Topic, { capacity, batchMaxEvents, autoRelease = false, name = 'consumer-1' }: Omit<Setup, 'mode'>) {
  const sink = new FakeSink(autoRelease);
  const logs: unknown[] = [];
  const logger = pino({ level: 'debug', base: null, timestamp: false }, { write: (line: string) => logs.push(JSON.parse(line)) });
  let rooms = 0;
  const subscriber = new Subscriber({
    name,
    capacity,
    batchMaxEvents,
    overflow: topic.overflow,
    table: topic.table,
    headOffset: () => topic.headOffset,
    write: sink.write,
    onRoom: () => {
      rooms += 1;
      topic.notifyRoom();
    },
    logger,
  });
  subscriber.startAt(topic.headOffset, []);
  topic.subscribers.set(name, subscriber);
  return { subscriber, sink, logs, rooms: () => rooms };
}

function setup(options: Setup) {
  const topic = new Topic(options.mode);
  let version = 0;
  /** Publishes one change per key, in order; returns the offsets. */
  const publish = (...keys: Array<number | `-${number}`>): number[] =>
    keys.map((k) => {
      const deleted = typeof k === 'string';
      version += 1;
      const c: Change = { key: Math.abs(Number(k)), version, value: deleted ? 0 : version, deleted, publishedAt: 0, payloadLength: 8 };
      return topic.publish(c, encodePublish(c).subarray(FRAME_HEADER_LENGTH));
    });
  return { topic, publish, ...subscribe(topic, options) };
}

describe('Subscriber: batching and the writer', () => {
  test('events published in one tick go out together on the next, at most batchMaxEvents per write, one write in flight at a time', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'lossy', capacity: 10, batchMaxEvents: 3 });
    publish(0, 1, 2, 3, 4, 5, 6);
    expect(sink.writes).toHaveLength(0); // deferred to the next turn of the event loop
    await tick();
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2']]);
    expect(subscriber.counters()).toEqual({ queued: 4, delivered: 0, dropped: 0, lastAccepted: 7 });
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
    expect(subscriber.counters()).toEqual({ queued: 0, delivered: 7, dropped: 0, lastAccepted: 7 });
    expect(subscriber.idle).toBe(true);
  });

  test('a frozen subscriber parks only its own writer: publishing never waits, and a healthy subscriber on the same topic gets everything', async () => {
    const { topic, publish, subscriber: frozen, sink: frozenSink } = setup({ mode: 'lossy', capacity: 8, batchMaxEvents: 4, name: 'frozen' });
    const healthy = subscribe(topic, { capacity: 8, batchMaxEvents: 4, autoRelease: true, name: 'healthy' });
    for (let round = 0; round < 5; round++) {
      publish(0, 1, 2, 3); // topic.publish is synchronous: it returns while the frozen write is still in flight
      await tick();
    }
    expect(healthy.sink.frames).toEqual(Array.from({ length: 20 }, (_, i) => `event ${i + 1} k${i % 4}`));
    expect(healthy.subscriber.counters()).toEqual({ queued: 0, delivered: 20, dropped: 0, lastAccepted: 20 });
    expect(frozenSink.frames).toEqual(['event 1 k0', 'event 2 k1', 'event 3 k2', 'event 4 k3']);
    expect(frozenSink.inFlight).toBe(1);
    expect(frozen.counters()).toEqual({ queued: 8, delivered: 0, dropped: 8, lastAccepted: 12 });
    expect(frozen.report().droppedRanges).toEqual([[13, 20]]);
  });

  test('control frames (an opening snapshot) are written at once, ahead of queued events, and never counted or dropped', async () => {
    const { subscriber, sink, publish, topic } = setup({ mode: 'lossy', capacity: 1, batchMaxEvents: 4 });
    publish(0);
    subscriber.sendControl(...topic.table.stateFramesSince(0, true), encodeSyncEnd(SyncKind.snapshot, 1));
    expect(sink.writes.map((w) => w.map(show))).toEqual([['state 1 k0', 'syncEnd snapshot 1', 'event 1 k0']]);
    await sink.release();
    subscriber.sendControl(encodeSyncEnd(SyncKind.snapshot, 1), encodeSyncEnd(SyncKind.snapshot, 1));
    expect(sink.writes).toHaveLength(2);
    await sink.release();
    expect(subscriber.counters()).toEqual({ queued: 0, delivered: 1, dropped: 0, lastAccepted: 1 });
  });

  test('a digest request is answered after every queued event, in the same write as the last of them, built when it is written', async () => {
    const { subscriber, sink, publish, topic } = setup({ mode: 'resync', capacity: 10, batchMaxEvents: 2 });
    publish(0, 1, 2);
    let built = 0;
    subscriber.requestDigest(() => {
      built += 1;
      return encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size);
    });
    expect(sink.frames).toEqual(['event 1 k0', 'event 2 k1']);
    expect(built).toBe(0);
    publish(3);
    await sink.release();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 3 k2', 'event 4 k3', 'digest 4 4']);
    expect(built).toBe(1);
    await sink.release();
    expect(sink.writes).toHaveLength(2);
  });

  test('a failed write ends the subscriber: queue cleared, later events ignored, room announced, reported as endedEarly', async () => {
    const { subscriber, sink, publish, logs, rooms } = setup({ mode: 'lossless', capacity: 2, batchMaxEvents: 1 });
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
    expect(subscriber.report()).toMatchObject({ queued: 0, delivered: 0, dropped: 0, lastAccepted: 2, endedEarly: 'write failed: stream reset' });
    expect(logs).toContainEqual(expect.objectContaining({ level: 40, subscriber: 'consumer-1', reason: 'write failed: stream reset', msg: 'subscriber ended' }));
    subscriber.end('again');
    expect(subscriber.endedEarly).toBe('write failed: stream reset');
  });
});

describe('Subscriber: a full queue in each mode', () => {
  test('lossy: a full queue drops the new event and keeps the old ones; drops are recorded as inclusive runs and nobody is told', async () => {
    const { subscriber, sink, publish, logs } = setup({ mode: 'lossy', capacity: 2, batchMaxEvents: 1 });
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
      lastAccepted: 6,
      droppedRanges: [[4, 5], [7, 7]],
      maxQueued: 2,
      endedEarly: null,
      lags: 0,
      resumes: 0,
      resyncBytes: 0,
      resyncFrames: 0,
      fullSnapshotBytes: 0,
      discarded: 0,
    });
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'drops started', subscriber: 'consumer-1', firstOffset: 4, queued: 2 }));
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'drops ended', subscriber: 'consumer-1', dropped: 2, resumedAt: 6 }));
  });

  test('lossless: a full queue has no room, the topic\'s waitForRoom holds until a batch is handed to the stream, and offer refuses instead of queueing', async () => {
    const { topic, subscriber, sink, publish, rooms } = setup({ mode: 'lossless', capacity: 2, batchMaxEvents: 2 });
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
    expect(subscriber.counters()).toEqual({ queued: 2, delivered: 0, dropped: 0, lastAccepted: 4 });
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
    expect(subscriber.report()).toMatchObject({ delivered: 4, dropped: 0, droppedRanges: [], maxQueued: 2, lags: 0, discarded: 0 });
  });

  test('resync: overflow discards the queue and lags; when the stream takes writes again it gets LAG, the delta with tombstones, SYNC_END, then live events', async () => {
    const { subscriber, sink, publish, topic, logs, rooms } = setup({ mode: 'resync', capacity: 3, batchMaxEvents: 2 });
    publish(0, 1);
    await tick(); // events 1 and 2 in flight: the stream has taken everything up to 2
    publish(2, 0, 3); // queue full
    const roomsBefore = rooms();
    publish(1); // offset 6 overflows: the three queued events are discarded
    expect(subscriber.counters()).toEqual({ queued: 0, delivered: 0, dropped: 0, lastAccepted: 5 });
    expect(rooms()).toBe(roomsBefore + 1);
    expect(subscriber.hasRoom).toBe(true);
    expect(subscriber.idle).toBe(false);
    publish('-2', 4, 5, 6, 7); // lagged: nothing queued, nothing dropped, however long the stall
    expect(subscriber.counters()).toEqual({ queued: 0, delivered: 0, dropped: 0, lastAccepted: 5 });
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
      lastAccepted: 12,
      droppedRanges: [],
      maxQueued: 3,
      endedEarly: null,
      lags: 1,
      resumes: 0,
      resyncBytes: recoveryBytes,
      resyncFrames: 10,
      fullSnapshotBytes: 7 * EVENT_BYTES,
      discarded: 3,
    });
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'lagged', subscriber: 'consumer-1', from: 2, discarded: 3, head: 6 }));
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'delta sent', subscriber: 'consumer-1', from: 2, head: 11, keys: 8 }));
    expect(subscriber.idle).toBe(true);
  });

  test('resync: each overflow after a recovery is a new lag, and each recovery adds its own bytes and the snapshot it saved', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'resync', capacity: 1, batchMaxEvents: 1 });
    publish(0);
    await tick(); // 1 in flight
    publish(1, 2); // 2 queued, 3 overflows
    await sink.release(); // LAG 2..3, k1@2, k2@3, SYNC_END 3: in flight
    publish(3, 4); // 4 queued, 5 overflows: lagged from 3
    await sink.release(); // LAG 4..5, k3@4, k4@5, SYNC_END 5
    await sink.release();
    expect(sink.frames).toEqual([
      'event 1 k0',
      'lag 2..3', 'state 2 k1', 'state 3 k2', 'syncEnd delta 3',
      'lag 4..5', 'state 4 k3', 'state 5 k4', 'syncEnd delta 5',
    ]);
    const oneRecovery = LAG_BYTES + 2 * EVENT_BYTES + SYNC_END_BYTES;
    expect(subscriber.report()).toMatchObject({ lags: 2, discarded: 2, resyncFrames: 8, resyncBytes: 2 * oneRecovery, fullSnapshotBytes: 3 * EVENT_BYTES + 5 * EVENT_BYTES, delivered: 1, lastAccepted: 5 });
  });
});

describe('Subscriber: resume requests', () => {
  test('a client\'s resume gets the delta after its offset and SYNC_END, without a LAG frame, and what was queued is discarded', async () => {
    const { subscriber, sink, publish, logs } = setup({ mode: 'resync', capacity: 10, batchMaxEvents: 2 });
    publish(0, 1, 2);
    await tick(); // 1 and 2 in flight, 3 queued
    subscriber.resume(1);
    expect(subscriber.counters().queued).toBe(0);
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual(['state 2 k1', 'state 3 k2', 'syncEnd delta 3']);
    await sink.release();
    expect(subscriber.report()).toMatchObject({ lags: 0, resumes: 1, discarded: 1, resyncFrames: 3, resyncBytes: 2 * EVENT_BYTES + SYNC_END_BYTES, delivered: 2, lastAccepted: 3 });
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'resume requested', fromOffset: 1 }));
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'resuming', from: 1 }));
  });

  test('a resume from beyond what was handed to the stream starts the delta at the last offset written', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'lossy', capacity: 10, batchMaxEvents: 1 });
    publish(0, 1, 2);
    await tick(); // 1 in flight
    subscriber.resume(99);
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual(['state 2 k1', 'state 3 k2', 'syncEnd delta 3']);
  });

  test('resumes while lagged widen the delta to the earliest offset asked for, never narrow it, and keep the LAG signal', async () => {
    const { subscriber, sink, publish } = setup({ mode: 'resync', capacity: 2, batchMaxEvents: 2 });
    publish(0, 1);
    await tick(); // 1 and 2 in flight
    publish(2, 3, 4); // 3 and 4 queued, 5 overflows: lagged from 2
    subscriber.resume(0);
    subscriber.resume(1); // a later resume before the delta goes out does not narrow it
    await sink.release();
    expect(sink.writes[1]!.map(show)).toEqual(['lag 1..5', 'state 1 k0', 'state 2 k1', 'state 3 k2', 'state 4 k3', 'state 5 k4', 'syncEnd delta 5']);
    await sink.release();
    expect(subscriber.report()).toMatchObject({ lags: 1, resumes: 2, discarded: 2, resyncFrames: 7 });
  });
});
