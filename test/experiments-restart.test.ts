/**
 * The restart experiment's figures from hand-made reports, no process started:
 * what brought each consumer back after the broker's restart (its subscriptions'
 * catchUpBytes) and when it had caught up, the point each run gives, how the
 * cost grows with the consumers, and the text and HTML that show it.
 */
import { renderExperiments } from '@state-divergence/orchestrator';
import { assembleOutcome, brokerOutageOf, consumerReturn, experimentsDocument, renderExperimentsHtml, restartPoint, type RestartPoint } from '@state-divergence/orchestrator/internal';
import type { BrokerReport, SubscriptionRecord } from '@state-divergence/protocol';
import { consumerReport, gathered, held, lastWriteOffsets } from './helpers/gathered-run.js';
import { startDemo } from './helpers/run-demo.js';

// On the run clock the broker is killed at 2,500 ms and started again at 3,000; publishing
// started at run 500 = wall 1,000, so that is wall 3,000 and 3,500.
const events = [
  { at: 1_200, type: 'crash' as const, consumer: 'consumer-9', pid: 7 }, // a consumer's crash is not the broker's
  { at: 2_500, type: 'crash' as const, consumer: 'broker', pid: 10 },
  { at: 3_000, type: 'restart' as const, consumer: 'broker', pid: 11 },
];
const outage = { crashedAt: 3_000, restartedAt: 3_500 };

const subscription = (at: number, outcome: SubscriptionRecord['outcome'], catchUpBytes: number): SubscriptionRecord => ({
  at, epoch: 1, head: 0, from: outcome === 'replayed' ? 6 : null, outcome, catchUpBytes, lastOffset: null, lastVersion: null,
});
/** Events applied at these wall times, each published `latency` ms earlier. */
const samples = (pairs: Array<[number, number]>) => ({ appliedAt: Float64Array.from(pairs.map(([at]) => at)), latencyMs: Float64Array.from(pairs.map(([at, latency]) => latency)) });

const all = held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]);
// Subscribed first at 1,000 (a snapshot of 5,000 bytes, not the restart's), again at 3,700 resuming from offset 6.
const replayer = consumerReport(all, {
  subscriptions: [subscription(1_000, 'snapshot', 5_000), subscription(3_700, 'replayed', 360)],
  // Live before the crash; the replay: published at 2,990 (before the crash) and 3,690 (after the restart, before its WELCOME); then live.
  latency: samples([[2_000, 5], [3_720, 730], [3_750, 60], [3_800, 3]]),
});
// A relist: its snapshot ends at 3,900; an earlier sync (before the crash) does not count.
const relister = consumerReport(all, {
  subscriptions: [subscription(1_000, 'snapshot', 5_000), subscription(3_850, 'snapshot', 900)],
  syncs: [
    { kind: 'delta', at: 2_200, frames: 3, keys: 3, bytes: 200, offset: 4 },
    { kind: 'snapshot', at: 3_900, frames: 10, keys: 10, bytes: 900, offset: 20 },
  ],
});
// Latest: nothing to catch up on, so it is caught up when it is welcomed.
const latest = consumerReport(all, { subscriptions: [subscription(1_000, 'latest', 0), subscription(3_600, 'latest', 0)] });

const brokerReport: BrokerReport = {
  role: 'broker', epoch: 2, recovered: null, durable: null, head: 12, lastWriteOffsets, digest: '0',
  subscribers: Object.fromEntries(['a', 'b', 'c', 'wrong'].map((name) => [name, {
    queued: 0, delivered: 12, dropped: 0, lastAccepted: 12, bytesSent: 0, droppedRanges: [], maxQueued: 1, endedEarly: null, disconnectedAt: null, disconnects: 0,
    lags: 0, blockedWrites: [], marks: [], marksDropped: 0, resumes: 0, resyncBytes: 0, resyncFrames: 0, fullSnapshotBytes: 0, discarded: 0, replayedEvents: 0, replayBytes: 0, backfills: 0,
  }])),
};

describe('how a consumer came back after the broker restarted', () => {
  test('the outage is the broker\'s last crash and restart, on the wall clock; no restart, no outage', () => {
    const origin = { runMs: 500, wallMs: 1_000 };
    expect(brokerOutageOf(events, origin)).toEqual(outage);
    expect(brokerOutageOf(events.slice(0, 2), origin)).toBeNull();
    expect(brokerOutageOf([], origin)).toBeNull();
  });

  test('a replay: its bytes after the crash only; caught up at the last event published before its WELCOME', () => {
    expect(consumerReturn(replayer, outage)).toEqual({ subscriptions: 1, catchUpBytes: 360, caughtUpAt: 3_750 });
  });

  test('a relist: caught up at its snapshot\'s end; latest: at its WELCOME', () => {
    expect(consumerReturn(relister, outage)).toEqual({ subscriptions: 1, catchUpBytes: 900, caughtUpAt: 3_900 });
    expect(consumerReturn(latest, outage)).toEqual({ subscriptions: 1, catchUpBytes: 0, caughtUpAt: 3_600 });
  });

  test('never subscribed again: caught up never; a report without subscriptions (foreign) says nothing', () => {
    expect(consumerReturn(consumerReport(all, { subscriptions: [subscription(1_000, 'latest', 0)] }), outage)).toEqual({ subscriptions: 0, catchUpBytes: 0, caughtUpAt: null });
    expect(consumerReturn(consumerReport(all), outage)).toBeNull();
  });
});

describe('a restart point', () => {
  const run = (consumers: Parameters<typeof gathered>[1]) => assembleOutcome({ ...gathered(brokerReport, consumers), events });

  test('every consumer correct: the bytes summed, converged when the last one caught up, from the restart', () => {
    const outcome = run([['a', replayer], ['b', relister], ['c', latest]]);
    expect(outcome.brokerRestart?.outage).toEqual(outage);
    expect(restartPoint(outcome, 3)).toEqual({ mode: 'lossy', consumers: 3, wrong: 0, reconnectBytes: 1_260, convergedMs: 400 });
  });

  test('one consumer ends wrong: the wrong keys counted, never converged', () => {
    const wrong = consumerReport(held([5, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]), { subscriptions: latest.subscriptions! }); // k0 at 5, not 11
    const point = restartPoint(run([['a', replayer], ['wrong', wrong]]), 2);
    expect(point).toEqual({ mode: 'lossy', consumers: 2, wrong: 1, reconnectBytes: 360, convergedMs: null });
  });

  test('a consumer that says nothing of its subscriptions: bytes and time unknown, not zero', () => {
    expect(restartPoint(run([['a', replayer], ['b', consumerReport(all)]]), 2)).toEqual({ mode: 'lossy', consumers: 2, wrong: 0, reconnectBytes: null, convergedMs: null });
  });

  test('a run whose broker never restarted is not a restart point', () => {
    expect(() => restartPoint(assembleOutcome(gathered(brokerReport, [['a', replayer]])), 1)).toThrow(/no broker restart/);
  });
});

describe('the restart table', () => {
  const points: RestartPoint[] = [
    { mode: 'lossy', consumers: 3, wrong: 12, reconnectBytes: 0, convergedMs: null },
    { mode: 'lossy', consumers: 25, wrong: 100, reconnectBytes: 0, convergedMs: null },
    { mode: 'resync', consumers: 3, wrong: 3_000, reconnectBytes: 600, convergedMs: null },
    { mode: 'resync', consumers: 25, wrong: 25_000, reconnectBytes: 12_500, convergedMs: null },
    { mode: 'durable', consumers: 3, wrong: 0, reconnectBytes: 300, convergedMs: 420 },
    { mode: 'durable', consumers: 25, wrong: 0, reconnectBytes: 3_000, convergedMs: 900 },
    { mode: 'durable', consumers: 10, wrong: null, reconnectBytes: null, convergedMs: null },
  ];
  const document = experimentsDocument(points.map((point) => ({ experiment: 'restart' as const, point })), { duration: 0.5, seed: 1, design: {} });

  test('--json: the points as measured, and per mode the bytes per consumer and the ratio of the most consumers to the fewest', () => {
    expect(document.experiments.restart!.points).toEqual(points);
    expect(document.experiments.restart!.growth).toEqual([
      { mode: 'lossy', bytesPerConsumer: [{ consumers: 3, bytes: 0 }, { consumers: 25, bytes: 0 }], between: [3, 25], ratio: null },
      { mode: 'resync', bytesPerConsumer: [{ consumers: 3, bytes: 200 }, { consumers: 25, bytes: 500 }], between: [3, 25], ratio: 20.8 },
      { mode: 'durable', bytesPerConsumer: [{ consumers: 3, bytes: 100 }, { consumers: 10, bytes: null }, { consumers: 25, bytes: 120 }], between: [3, 25], ratio: 10 },
    ]);
  });

  test('text: a row per point (never for a mode that ends wrong, - for unknown) and a growth line per mode', () => {
    const text = renderExperiments(document);
    const rows = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows).toContainEqual(['mode', 'consumers', 'wrong', 'reconnect bytes', 'per consumer', 'converged ms']);
    expect(rows).toContainEqual(['resync', '25', '25000', '12500', '500', 'never']);
    expect(rows).toContainEqual(['durable', '25', '0', '3000', '120', '900']);
    expect(rows).toContainEqual(['durable', '10', '-', '-', '-', '-']);
    expect(text).toContain('lossy: nothing sent to catch up, at 3 → 25 consumers');
    expect(text).toContain('resync: 200 → 500 bytes per consumer at 3 → 25 consumers; all consumers together ×20.8 (25 vs 3)');
    expect(text).toContain('durable: 100 → - → 120 bytes per consumer at 3 → 10 → 25 consumers; all consumers together ×10 (25 vs 3)');
  });

  test('HTML: one chart, bytes per consumer by consumers, a bar series per mode', () => {
    const page = renderExperimentsHtml(document);
    expect(page.match(/<svg /g)).toHaveLength(1);
    expect(page).toContain('<title>durable 25: 120</title>');
    expect(page).toContain('<title>resync 3: 200</title>');
  });
});

describe('narrowing the restart experiment', () => {
  test.each([
    [['--only', 'restart', '--restart-consumers', '3,7'], /^orchestrator experiments: --restart-consumers takes a comma list of 3, 10, 25, got 3,7 \(see experiments --help\)$/],
    [['--only', 'restart', '--restart-modes', 'durable,nope'], /^orchestrator experiments: --restart-modes takes a comma list of lossy, resync, durable, got durable,nope/],
    [['--only', 'churn', '--restart-modes', 'durable'], /^orchestrator experiments: --restart-modes and --restart-consumers narrow the restart experiment; add restart to --only/],
  ])('%j exits 2 with one line, nothing started', async (args, message) => {
    const result = await startDemo(['experiments', ...args]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(String(result.stderr).trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
  });
});
