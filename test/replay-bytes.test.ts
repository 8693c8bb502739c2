/**
 * The bytes a durable column replayed from its log: one figure, from one source. The
 * case that split it (modes.e2e durable with both cores busy, 2 of 5 runs): besides the
 * stalled consumer, the machine paused a healthy consumer's process longer than its 64-event
 * queue lasts (160 ms at 400/s), so the broker back-filled that one from the log too. The
 * column's cost counts every consumer it replayed to (396,018 bytes in one such run: 229,026
 * for the stalled consumer, 83,496 for each healthy one), so it is not the stalled
 * consumer's figure, and the test that said it was failed.
 *
 * The same run carried the figure twice: the cost, summed over the run's consumers
 * (check/outcome.ts), and the `durable` block's, summed by the broker over every name it
 * served, a --rogue-frames client's included. Both now come from the consumers' entries.
 * The real Topic, Subscribers and back-fill over an in-memory log (as backfill.test.ts),
 * the real report assembly and --json document.
 */
import { durableReport, subscriberReports } from '@state-divergence/broker/internal';
import type { BrokerReport } from '@state-divergence/protocol';
import { assembleOutcome, toJsonRun } from '@state-divergence/orchestrator/internal';
import { FakeLog } from './fixtures/fake-log.js';
import { subscribe, tick, topicWith } from './fixtures/fake-subscriber.js';
import { consumerReport, gathered } from './helpers/gathered-run.js';

const CAPACITY = 4;
const PAGE = 4;

/** The broker's side of a durable run: the stalled consumer frozen, a healthy one paused once, one keeping up, and a
 * rogue client that reads one write and no more. */
async function servedRun() {
  const log = new FakeLog();
  const fed = topicWith({ mode: 'durable', log });
  const join = (name: string, autoRelease = false, capacity = CAPACITY) =>
    subscribe(fed.topic, { name, queueCapacity: capacity, batchMaxEvents: PAGE, autoRelease });
  const stalled = join('consumer-3');
  const paused = join('consumer-1');
  join('consumer-2', true, 64); // room for every burst: never behind
  const rogue = join('rogue-1');
  const feed = (count: number) => fed.publish(...Array.from({ length: count }, (_, i) => i % 6));
  feed(1); // the first write of each: in flight, not yet taken
  await tick();
  feed(20); // every queue but consumer-2's overflows: each goes to the log
  await rogue.sink.release(); // the rogue's stream takes one write more: a page of the log
  paused.sink.autoRelease = true; // its process runs again: it reads the log up to the head, then live
  await paused.sink.releaseAll();
  feed(10);
  await tick();
  await stalled.sink.releaseAll(); // thawed: the log a page at a time
  await stalled.sink.releaseAll();
  const subscribers = subscriberReports(fed.topic);
  const broker: BrokerReport = {
    role: 'broker',
    epoch: 1,
    recovered: null,
    head: fed.topic.headOffset,
    lastWriteOffsets: [],
    digest: '0',
    subscribers,
    durable: durableReport(log as never, 'periodic'),
  };
  return { subscribers, broker };
}

test('a healthy consumer back-filled beside the stalled one: the cost counts both, and the durable block says the same figure', async () => {
  const { subscribers, broker } = await servedRun();
  const replay = (name: string) => subscribers[name]!;
  // The case: two of the run's consumers, and the rogue client, were served from the log.
  expect(replay('consumer-3')).toMatchObject({ backfills: 1, dropped: 0 });
  expect(replay('consumer-1')).toMatchObject({ backfills: 1, dropped: 0 });
  expect(replay('consumer-2')).toMatchObject({ backfills: 0, replayBytes: 0 });
  expect(replay('rogue-1').replayBytes).toBeGreaterThan(0);
  for (const name of ['consumer-1', 'consumer-3']) expect(replay(name).replayBytes).toBeGreaterThan(0);

  const run = gathered(
    broker,
    ['consumer-1', 'consumer-2', 'consumer-3'].map((name) => [name, consumerReport([])]),
  );
  run.mode = 'durable';
  const document = toJsonRun(assembleOutcome(run));
  const consumers = ['consumer-1', 'consumer-2', 'consumer-3'].map(replay);
  const sum = (field: 'replayBytes' | 'replayedEvents') => consumers.reduce((total, s) => total + s[field], 0);
  // The cost is every consumer's replay: more than the stalled one's (the split modes.e2e saw), the rogue's left out.
  expect(document.cost.replayBytes).toBe(sum('replayBytes'));
  expect(document.cost.replayBytes).toBeGreaterThan(replay('consumer-3').replayBytes);
  // And the durable block is that same figure, not a second sum of its own.
  expect(document.durable).toMatchObject({
    replayedEvents: sum('replayedEvents'),
    replayBytes: document.cost.replayBytes,
  });
});
