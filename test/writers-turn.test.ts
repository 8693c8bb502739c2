/**
 * Topic.writersTurn: the publisher's reader lets a writer whose write is due have its turn before
 * it offers more. Reads of a buffered stream resolve within microtasks, so without it a backlog
 * read in one go overflowed every healthy queue with its writer idle (the firehose's drops).
 * The loops below are the broker's publisher loop (client-session.ts servePublisher): each
 * change, then the turn if one is due. Fake sink, real Topic; no clock involved.
 */
import { subscribe, topicWith } from './fixtures/fake-subscriber.js';

/** What servePublisher does for each change: publish it, then let a due writer have its turn. */
async function readBacklog(topic: ReturnType<typeof topicWith>['topic'], publish: (key: number) => unknown, changes: number): Promise<number> {
  let turns = 0;
  for (let k = 0; k < changes; k++) {
    publish(k % 12);
    const turn = topic.writersTurn();
    if (turn) {
      turns += 1;
      await turn;
    }
  }
  return turns;
}

describe('the writers get their turn during a burst of publisher reads', () => {
  test('a backlog ten times the queue reaches a healthy subscriber whole, with a turn per half queue', async () => {
    const { topic, publish } = topicWith({ mode: 'lossy' });
    const { subscriber, sink } = subscribe(topic, { capacity: 8, batchMaxEvents: 100, autoRelease: true });
    const turns = await readBacklog(topic, publish, 80);
    await new Promise((resolve) => setImmediate(resolve));
    expect(subscriber.counters()).toMatchObject({ dropped: 0, delivered: 80, queued: 0 });
    // A write every half queue (4 events): never more turns than that, never a write of one.
    expect(turns).toBe(20);
    expect(sink.writes.every((w) => w.length === 4)).toBe(true);
  });

  test('without the turns, the same backlog overflows the queue while its writer sits idle', async () => {
    const { topic, publish } = topicWith({ mode: 'lossy' });
    const { subscriber, sink } = subscribe(topic, { capacity: 8, batchMaxEvents: 100, autoRelease: true });
    for (let k = 0; k < 80; k++) publish(k % 12);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.writes).toHaveLength(1);
    expect(subscriber.counters()).toMatchObject({ dropped: 72, delivered: 8 });
  });

  test('a writer stuck on its stream (a frozen peer) asks for no turn: its queue fills and drops, and nobody else waits for it', async () => {
    const { topic, publish } = topicWith({ mode: 'lossy' });
    const frozen = subscribe(topic, { capacity: 8, batchMaxEvents: 100, name: 'consumer-3' });
    // Its first write goes out and never completes.
    publish(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(frozen.sink.inFlight).toBe(1);
    const turns = await readBacklog(topic, publish, 40);
    expect(turns).toBe(0);
    expect(frozen.subscriber.counters()).toMatchObject({ queued: 8, dropped: 32 });
  });

  test('with coalescing, the held events ask for a turn only once they are half a queue', async () => {
    const { topic, publish } = topicWith({ mode: 'lossy' });
    const { subscriber } = subscribe(topic, { capacity: 16, batchMaxEvents: 100, coalesceMs: 10_000, autoRelease: true });
    expect(await readBacklog(topic, publish, 7)).toBe(0);
    expect(subscriber.queued).toBe(7);
    expect(await readBacklog(topic, publish, 1)).toBe(1);
    expect(subscriber.counters()).toMatchObject({ queued: 0, delivered: 8, dropped: 0 });
  });
});
