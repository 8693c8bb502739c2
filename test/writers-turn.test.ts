/**
 * The writers' turn (Topic.writersTurn), through the broker's own publisher loop (servePublisher):
 * a reader of a buffered stream gets each frame within microtasks, so without the turn a backlog
 * read in one go overflowed every healthy queue with its writer idle (the firehose's drops). The
 * frames come from an async generator, which, like a buffered QUIC stream, never leaves the
 * microtask queue on its own. Fake sinks, the real Topic, Acker and memoryIntake; no clock.
 */
import pino from 'pino';
import { encodePublish, FrameDecoder, type Change, type Frame } from '@state-divergence/protocol';
import { Acker, memoryIntake, servePublisher, Topic, type SessionContext } from '@state-divergence/broker/internal';
import { subscribe } from './fixtures/fake-subscriber.js';

const KEYS = 12;
const logger = pino({ level: 'silent' });
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `count` PUBLISH frames, versions after `from`, decoded as the broker's reader decodes them. */
function publishFrames(count: number, from = 0): Frame[] {
  const decoder = new FrameDecoder();
  for (let i = 1; i <= count; i++) {
    const version = from + i;
    const change: Change = {
      key: version % KEYS,
      version,
      value: version,
      deleted: false,
      publishedAt: 0,
      payloadLength: 8,
    };
    decoder.push(encodePublish(change));
  }
  const frames: Frame[] = [];
  for (let frame = decoder.next(); frame !== null; frame = decoder.next()) frames.push(frame);
  return frames;
}

/** The publisher's stream with its whole backlog already buffered: every frame within microtasks. */
async function* buffered(frames: Frame[]): AsyncGenerator<Frame> {
  for (const frame of frames) yield frame;
}

/** A lossy broker's topic, and its publisher session's loop over `frames`, counting the turns the writers got. */
function lossyBroker() {
  const topic = new Topic('drop-new'); // lossy's queue policy under the default --overflow
  const context: SessionContext = {
    topic,
    init: { keys: KEYS } as SessionContext['init'],
    token: Buffer.alloc(0),
    logger,
    ending: () => false,
    publisher: { connected: true },
    epoch: 1,
    intake: memoryIntake(topic),
  };
  let turns = 0;
  const writersTurn = topic.writersTurn.bind(topic);
  topic.writersTurn = () => {
    const turn = writersTurn();
    if (turn) turns += 1;
    return turn;
  };
  const serve = async (frames: Frame[]) => {
    const acker = new Acker(
      async () => {},
      () => ({ version: topic.highestVersion, head: topic.headOffset }),
    );
    await servePublisher(buffered(frames), 'publisher', context, acker, () => {});
    await tick();
  };
  return { topic, serve, turns: () => turns };
}

describe("the writers get their turn during the publisher's backlog", () => {
  test('a backlog ten times the queue reaches a healthy subscriber whole, a write per half queue', async () => {
    const { topic, serve, turns } = lossyBroker();
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 100, autoRelease: true });
    await serve(publishFrames(80));
    expect(subscriber.counters()).toMatchObject({ dropped: 0, delivered: 80, queued: 0 });
    expect(turns()).toBe(20);
    expect(sink.writes.map((w) => w.length)).toEqual(Array(20).fill(4));
  });

  test('what the turns prevent: the same backlog offered without them overflows while the writer sits idle', async () => {
    // Not the loop under test: the Topic alone, as the publisher loop drove it before the turns.
    const topic = new Topic('drop-new');
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 100, autoRelease: true });
    for (const frame of publishFrames(80)) if (frame.type === 'publish') topic.publish(frame.change, frame.body);
    await tick();
    expect(sink.writes).toHaveLength(1);
    expect(subscriber.counters()).toMatchObject({ dropped: 72, delivered: 8 });
  });

  test('a writer stuck on a frozen peer asks for no turn: it drops, and the healthy one beside it gets everything', async () => {
    const { topic, serve, turns } = lossyBroker();
    const frozen = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 100, name: 'consumer-3' });
    const healthy = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 100, autoRelease: true });
    await serve(publishFrames(1));
    expect(frozen.sink.inFlight).toBe(1); // its first write never completes
    await serve(publishFrames(40, 1));
    expect(frozen.subscriber.counters()).toMatchObject({ queued: 8, dropped: 32 });
    expect(healthy.subscriber.counters()).toMatchObject({ dropped: 0, delivered: 41 });
    // Only the healthy writer's: one per half of its queue.
    expect(turns()).toBe(10);
  });

  test('a write that completes while its queue is full gets its turn before the rest of the backlog is dropped', async () => {
    const { topic, serve } = lossyBroker();
    const { subscriber, sink } = subscribe(topic, { queueCapacity: 8, batchMaxEvents: 100 });
    await serve(publishFrames(1));
    await serve(publishFrames(8, 1)); // the queue is full behind the write in flight
    expect(sink.inFlight).toBe(1);
    // The peer takes the write in flight and, from now on, every write at once (a transport with room).
    sink.autoRelease = true;
    const release = sink.release();
    await serve(publishFrames(40, 9));
    await release;
    // The change read while the queue was still full is dropped; then the due write gets its turn.
    // Without the turn on a full queue all 40 would be: the write was due, but never ran.
    expect(subscriber.counters()).toMatchObject({ dropped: 1, delivered: 48, queued: 0 });
  });

  test('with coalescing, held events ask for a turn only once they are half a queue', async () => {
    const { topic, serve, turns } = lossyBroker();
    const { subscriber } = subscribe(topic, {
      queueCapacity: 16,
      batchMaxEvents: 100,
      coalesceMs: 10_000,
      autoRelease: true,
    });
    await serve(publishFrames(7));
    expect(turns()).toBe(0);
    expect(subscriber.queued).toBe(7);
    await serve(publishFrames(1, 7));
    expect(turns()).toBe(1);
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 8, dropped: 0 });
  });
});
