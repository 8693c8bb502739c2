/**
 * The restart experiment's points from hand-made runs (test/helpers/restart-run.ts's
 * story), no process started: the run's own figures (wrong at the end, every
 * resume's catchUpBytes, "correct again" after the broker's return) make a point;
 * how the cost grows with the consumers; the text and HTML that show it.
 */
import { renderExperiments } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  experimentsDocument,
  renderExperimentsHtml,
  restartPoint,
  type RestartPoint,
} from '@state-divergence/orchestrator/internal';
import { copy, EPOCHS, restartReport, restartRun, subscription } from './helpers/restart-run.js';
import { startDemo } from './helpers/run-demo.js';

/** Events applied at these wall times, each published `latency` ms earlier. */
const samples = (pairs: Array<[number, number]>) => ({
  appliedAt: Float64Array.from(pairs.map(([at]) => at)),
  latencyMs: Float64Array.from(pairs.map(([, latency]) => latency)),
});
const first = subscription({ outcome: 'snapshot', catchUpBytes: 5_000 }); // at 900, before the outage: not a resume
// The broker was killed at 3,000 and back at 3,500 (OUTAGE). A replay: its last event published before the
// broker's return (at 2,990) applied at 3,720; then live ones.
const replayer = restartReport(
  copy(7, 8, 3, 15, 14, 16),
  [first, subscription({ at: 3_600, from: 8, outcome: 'replayed', catchUpBytes: 360 })],
  {
    latency: samples([
      [2_000, 5],
      [3_720, 730],
      [3_800, 3],
    ]),
  },
);
// Also replayed: an event published after the broker's return but before its WELCOME (3,590), applied at 3,980.
const lateReplayer = restartReport(
  copy(7, 8, 3, 15, 14, 16),
  [first, subscription({ at: 3_600, from: 8, outcome: 'replayed', catchUpBytes: 500 })],
  {
    latency: samples([
      [3_720, 730],
      [3_980, 390],
      [3_990, 5],
    ]),
  },
);
// A snapshot after the restart (a relist) ends at 3,900.
const relister = restartReport(
  copy(7, 8, 3, 15, 14, 16),
  [first, subscription({ at: 3_850, outcome: 'snapshot', catchUpBytes: 900 })],
  {
    syncs: [{ kind: 'snapshot', at: 3_900, frames: 6, keys: 6, bytes: 900, offset: 15 }],
  },
);

describe('a restart point', () => {
  test("every consumer correct: every resume's bytes, converged when the last one was correct again after the broker's return", () => {
    const outcome = assembleOutcome(
      restartRun('durable', [
        ['a', replayer],
        ['b', relister],
      ]),
    );
    expect(outcome.consumers.map((c) => c.wrongKeys)).toEqual([[], []]);
    expect(restartPoint(outcome, 2)).toEqual({
      mode: 'durable',
      consumers: 2,
      wrong: 0,
      reconnectBytes: 1_260,
      convergedMs: 400,
    });
  });

  test('caught up counts from when the consumer was back, not the broker: its WELCOME, and the backlog published before it', () => {
    // lossy: nothing to catch up on, but not back until its latest subscription at 3,700.
    const latest = restartReport(copy(7, 8, 3, 15, 14, 16), [
      subscription({}),
      subscription({ at: 3_700, epoch: EPOCHS.second }),
    ]);
    expect(restartPoint(assembleOutcome(restartRun('lossy', [['a', latest]])), 1)).toEqual({
      mode: 'lossy',
      consumers: 1,
      wrong: 0,
      reconnectBytes: 0,
      convergedMs: 200,
    });
    expect(restartPoint(assembleOutcome(restartRun('durable', [['a', lateReplayer]])), 1)).toMatchObject({
      reconnectBytes: 500,
      convergedMs: 480,
    });
  });

  test('a consumer ends wrong (resync: its snapshot from the empty broker forgot k0-k2): the wrong keys counted, never converged', () => {
    const forgot = restartReport(
      copy(15, 14, 16),
      [first, subscription({ at: 3_600, epoch: EPOCHS.second, outcome: 'snapshot', catchUpBytes: 120 })],
      {
        removedBySnapshot: [
          [0, 7],
          [1, 8],
          [2, 3],
        ],
        syncs: [{ kind: 'snapshot', at: 3_620, frames: 3, keys: 3, bytes: 120, offset: 7 }],
      },
    );
    const point = restartPoint(assembleOutcome(restartRun('resync', [['a', forgot]])), 1);
    expect(point).toEqual({ mode: 'resync', consumers: 1, wrong: 3, reconnectBytes: 120, convergedMs: null });
  });

  test('a verdict unknown (a copy not gathered): wrong unknown, not zero, and so is the time', () => {
    const point = restartPoint(
      assembleOutcome(
        restartRun('durable', [
          ['a', replayer],
          ['b', null],
        ]),
      ),
      2,
    );
    expect(point).toMatchObject({ wrong: null, convergedMs: null });
  });

  test('a run whose broker never restarted is not a restart point', () => {
    const run = restartRun('durable', [['a', replayer]]);
    run.brokerOutages = [];
    expect(() => restartPoint(assembleOutcome(run), 1)).toThrow(/no broker restart/);
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
    { mode: 'durable', consumers: 10, wrong: null, reconnectBytes: 1_100, convergedMs: null },
  ];
  const document = experimentsDocument(
    points.map((point) => ({ experiment: 'restart' as const, point })),
    { duration: 0.5, seed: 1, design: {} },
  );

  test('--json: the points as measured, and per mode the bytes per consumer and the ratio of the most consumers to the fewest', () => {
    expect(document.experiments.restart!.points).toEqual(points);
    expect(document.experiments.restart!.growth).toEqual([
      {
        mode: 'lossy',
        perConsumer: [
          { consumers: 3, bytes: 0, wrong: 4 },
          { consumers: 25, bytes: 0, wrong: 4 },
        ],
        between: [3, 25],
        ratio: null,
      },
      {
        mode: 'resync',
        perConsumer: [
          { consumers: 3, bytes: 200, wrong: 1_000 },
          { consumers: 25, bytes: 500, wrong: 1_000 },
        ],
        between: [3, 25],
        ratio: 20.8,
      },
      {
        mode: 'durable',
        perConsumer: [
          { consumers: 3, bytes: 100, wrong: 0 },
          { consumers: 10, bytes: 110, wrong: null },
          { consumers: 25, bytes: 120, wrong: 0 },
        ],
        between: [3, 25],
        ratio: 10,
      },
    ]);
  });

  test('a ratio far below 1 keeps three significant figures (a relist that found the broker empty at the most consumers)', () => {
    const empty = experimentsDocument(
      [
        { mode: 'resync' as const, consumers: 3, wrong: 0, reconnectBytes: 37_068, convergedMs: null },
        { mode: 'resync' as const, consumers: 25, wrong: 0, reconnectBytes: 350, convergedMs: null },
      ].map((point) => ({ experiment: 'restart' as const, point })),
      { duration: 0.5, seed: 1, design: {} },
    );
    expect(empty.experiments.restart!.growth[0]!.ratio).toBe(0.00944);
  });

  test('text: a row per point (never for a mode that ends wrong, - for unknown) and a growth line per mode', () => {
    const text = renderExperiments(document);
    const rows = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows).toContainEqual(['mode', 'consumers', 'wrong', 'reconnect bytes', 'bytes each', 'converged ms']);
    expect(rows).toContainEqual(['resync', '25', '25000', '12500', '500', 'never']);
    expect(rows).toContainEqual(['durable', '25', '0', '3000', '120', '900']);
    expect(rows).toContainEqual(['durable', '10', '-', '1100', '110', '-']);
    expect(text).toContain("how reconnecting's cost grows with the consumers, per consumer at 3 → 10 → 25 consumers:");
    expect(text).toContain('    lossy: nothing sent to catch up, 4 → 4 keys wrong\n');
    expect(text).toContain(
      "    resync: 200 → 500 bytes, 1000 → 1000 keys wrong; all consumers' bytes ×20.8 (25 vs 3)\n",
    );
    expect(text).toContain(
      "    durable: 100 → 110 → 120 bytes, 0 → - → 0 keys wrong; all consumers' bytes ×10 (25 vs 3)\n",
    );
    expect(text).toContain("A relist carries the restarted broker's table as it is when the consumer gets back");
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
    [
      ['--only', 'restart', '--restart-consumers', '3,7'],
      /^orchestrator experiments: --restart-consumers takes a comma list of 3, 10, 25, got 3,7 \(see experiments --help\)$/,
    ],
    [
      ['--only', 'restart', '--restart-modes', 'durable,nope'],
      /^orchestrator experiments: --restart-modes takes a comma list of lossy, resync, durable, got durable,nope/,
    ],
    [
      ['--only', 'churn', '--restart-modes', 'durable'],
      /^orchestrator experiments: --restart-modes and --restart-consumers narrow the restart experiment; add restart to --only/,
    ],
  ])('%j exits 2 with one line, nothing started', async (args, message) => {
    const result = await startDemo(['experiments', ...args]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(String(result.stderr).trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
  });
});
