/**
 * --coalesce-ms at the broker's Subscriber (fake sink, real Topic): queued events wait until the
 * oldest has waited coalesceMs, then go out in one write; a full batch, a digest and control
 * frames never wait. Timers and performance.now are jest's fake ones (the hold is a setTimeout
 * measured with performance.now), so nothing depends on the machine's speed; setImmediate stays
 * real (the fixture's tick).
 */
import { jest } from '@jest/globals';
import { encodeDigest, encodeProgress } from '@state-divergence/protocol';
import { setup, show, tick } from './fixtures/fake-subscriber.js';

beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

/** Moves the fake clock and lets what it released run. */
async function advance(ms: number): Promise<void> {
  jest.advanceTimersByTime(ms);
  await tick();
}

describe('Subscriber with coalesceMs', () => {
  test('events are held until the oldest has waited coalesceMs, then everything queued goes out in one write', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 10, coalesceMs: 50 });
    publish(0, 1);
    await tick();
    expect(sink.writes).toHaveLength(0);
    await advance(30);
    publish(2);
    await advance(19);
    expect(sink.writes).toHaveLength(0);
    await advance(1);
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2']]);
    // The next event starts a hold of its own.
    await sink.release();
    publish(3);
    await advance(49);
    expect(sink.writes).toHaveLength(1);
    await advance(1);
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 4 k3']);
  });

  test('a full batch goes out at once; the rest waits until its oldest has waited coalesceMs', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 3, coalesceMs: 50 });
    publish(0, 1, 2, 3);
    await tick();
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2']]);
    await sink.release();
    expect(sink.writes).toHaveLength(1); // event 4 arrived with the others: it is held from then
    await advance(50);
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 4 k3']);
  });

  test('half a queue is a full batch too: holding never brings a queue near overflowing', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 8, batchMaxEvents: 100, coalesceMs: 50 });
    publish(0, 1, 2);
    await tick();
    expect(sink.writes).toHaveLength(0);
    publish(3);
    await tick();
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2', 'event 4 k3']]);
  });

  test('events queued behind a slow write go out as soon as it completes when they have waited coalesceMs', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 10, coalesceMs: 50 });
    publish(0);
    await advance(50);
    expect(sink.writes).toHaveLength(1);
    publish(1, 2); // queued while the write is in flight
    await advance(80); // the write is still pending: nothing else goes out
    expect(sink.writes).toHaveLength(1);
    await sink.release();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 2 k1', 'event 3 k2']);
  });

  test('a digest request and control frames are written at once, with the held events ahead of them', async () => {
    const { subscriber, sink, publish, topic } = setup({
      mode: 'resync',
      queueCapacity: 100,
      batchMaxEvents: 10,
      coalesceMs: 500,
    });
    publish(0, 1);
    await tick();
    expect(sink.writes).toHaveLength(0);
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    );
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'digest 2 2']]);
    await sink.release();
    publish(2);
    subscriber.sendControl(encodeProgress(topic.headOffset));
    expect(sink.writes.at(-1)!.map(show)).toEqual(['progress', 'event 3 k2']);
  });

  test('a digest or control frame asked for while a write is in flight goes out when it completes, not after a hold', async () => {
    const { subscriber, sink, publish, topic } = setup({
      mode: 'resync',
      queueCapacity: 100,
      batchMaxEvents: 10,
      coalesceMs: 500,
    });
    publish(0);
    await advance(500);
    expect(sink.writes).toHaveLength(1); // in flight
    publish(1); // a young event: alone it would be held
    subscriber.requestDigest(() =>
      encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
    );
    await sink.release();
    await tick();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 2 k1', 'digest 2 2']);
    await sink.release();
    publish(2);
    await advance(500);
    expect(sink.writes).toHaveLength(3); // event 3, in flight
    subscriber.sendControl(encodeProgress(topic.headOffset));
    await sink.release();
    await tick();
    expect(sink.writes.at(-1)!.map(show)).toEqual(['progress']);
  });

  test('a write that completes with nothing queued starts no hold: the next event waits its own coalesceMs, not what is left of an old one', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 8, batchMaxEvents: 100, coalesceMs: 50 });
    publish(0, 1, 2, 3); // half the queue: out at once
    await tick();
    expect(sink.writes).toHaveLength(1);
    await sink.release();
    expect(jest.getTimerCount()).toBe(0);
    await advance(10);
    publish(4);
    await advance(40); // 50 ms after the first batch: a timer left from it would release this event now
    expect(sink.writes).toHaveLength(1);
    await advance(10);
    expect(sink.writes.at(-1)!.map(show)).toEqual(['event 5 k4']);
  });

  test('an ended subscription leaves no hold behind', async () => {
    const { subscriber, sink, publish } = setup({
      mode: 'lossy',
      queueCapacity: 100,
      batchMaxEvents: 10,
      coalesceMs: 50,
    });
    publish(0);
    subscriber.end('test over', 'debug');
    expect(jest.getTimerCount()).toBe(0);
    await advance(100);
    expect(sink.writes).toHaveLength(0);
  });
});
