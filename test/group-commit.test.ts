/**
 * The broker's group commit (subscriber/writer.ts) at the default --coalesce-ms 0, counted in writes
 * to a fake sink whose writes stay in flight until the test releases them: an idle writer writes
 * each publisher batch on the turn it arrives, with no timer; a busy one writes nothing while its
 * write is in flight and then everything that queued behind it, in full batches. Timers are jest's
 * fake ones and never advanced (setImmediate stays real: the fixture's tick), so a write that needed
 * a timer would never go out.
 */
import { jest } from '@jest/globals';
import { KNOB_DEFAULTS } from '@state-divergence/protocol';
import { setup, show, tick } from './fixtures/fake-subscriber.js';

beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

const eventsPerWrite = (writes: ReadonlyArray<{ length: number }>) => writes.map((w) => w.length);

describe('Subscriber group commit (no hold)', () => {
  test('the default --coalesce-ms is 0: group commit only', () => {
    expect(KNOB_DEFAULTS.coalesceMs).toBe(0);
  });

  test('an idle writer writes each publisher batch on the turn it arrives, with no timer', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 10, autoRelease: true });
    publish(0, 1, 2); // one publisher batch, decoded in one turn
    expect(jest.getTimerCount()).toBe(0);
    await tick();
    expect(sink.writes.map((w) => w.map(show))).toEqual([['event 1 k0', 'event 2 k1', 'event 3 k2']]);
    // A trickle: each batch finds the writer idle and goes out on its own turn, one write each.
    for (let batch = 0; batch < 5; batch++) {
      publish(3 + batch);
      await tick();
      expect(sink.writes).toHaveLength(2 + batch);
    }
    expect(eventsPerWrite(sink.writes)).toEqual([3, 1, 1, 1, 1, 1]);
    expect(jest.getTimerCount()).toBe(0);
  });

  test('a busy writer writes nothing while its write is in flight, then everything that queued in one write', async () => {
    const { sink, publish } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 50 });
    publish(0);
    await tick();
    expect(sink.writes).toHaveLength(1);
    expect(sink.inFlight).toBe(1);
    // Five publisher batches over five turns, all behind the write in flight.
    for (let batch = 0; batch < 5; batch++) {
      publish(1, 2, 3, 4);
      await tick();
    }
    expect(sink.writes).toHaveLength(1);
    await sink.release();
    expect(sink.writes).toHaveLength(2);
    expect(sink.writes[1]).toHaveLength(20);
    expect(sink.writes[1]!.map(show).at(0)).toBe('event 2 k1');
    expect(sink.writes[1]!.map(show).at(-1)).toBe('event 21 k4');
    expect(jest.getTimerCount()).toBe(0);
  });

  test('a backlog goes out in full batches, one write in flight at a time', async () => {
    const { sink, publish, subscriber } = setup({ mode: 'lossy', queueCapacity: 100, batchMaxEvents: 8 });
    publish(0);
    await tick();
    publish(...Array.from({ length: 20 }, (_, i) => i + 1)); // queued behind the first write
    await sink.releaseAll();
    expect(eventsPerWrite(sink.writes)).toEqual([1, 8, 8, 4]);
    expect(sink.maxInFlight).toBe(1);
    expect(subscriber.counters()).toMatchObject({ delivered: 21, dropped: 0, queued: 0 });
  });
});
