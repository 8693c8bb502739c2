/**
 * The network experiment without starting a process: its design (which runs, with which flags),
 * a point measured from a hand-built run (helpers/gathered-run.ts), and the --json, text and HTML
 * that show the points.
 */
import { renderExperiments } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  describeFault,
  DESIGN,
  designExperiments,
  experimentsDocument,
  faultWindow,
  networkPoint,
  renderExperimentsHtml,
  type NetworkPoint,
} from '@state-divergence/orchestrator/internal';
import { consumerReport, gathered, held } from './helpers/gathered-run.js';
import { subscriberEntry } from './helpers/restart-run.js';

describe("the network experiment's design", () => {
  const runs = designExperiments(['network'], { duration: 0.5, seed: 1 }, { stderrIsTTY: false });

  test('each partition (shorter and longer than the idle timeout) and each loss under every mode: 20 runs', () => {
    expect(
      runs.map((r) =>
        r.experiment === 'network' ? `${r.settings.fault} ${r.settings.size} ${r.settings.mode}` : r.experiment,
      ),
    ).toEqual([
      ...['partition 1', 'partition 4', 'loss 0', 'loss 5', 'loss 20'].flatMap((f) =>
        ['lossy', 'lossless', 'resync', 'durable'].map((m) => `${f} ${m}`),
      ),
    ]);
    expect(DESIGN.network.partitions[0]).toBeLessThan(DESIGN.network.idleTimeout);
    expect(DESIGN.network.partitions[1]).toBeGreaterThan(DESIGN.network.idleTimeout);
  });

  test("every run: one mode, the last consumer's link faulted from the end of the first phase, no other fault, the idle timeout shortened", () => {
    for (const { options } of runs) {
      expect(options.modes).toHaveLength(1);
      expect(options.consumers).toBe(3);
      expect(options.rate).toBe(800);
      expect(options.idleTimeoutMs).toBe(2_000);
      expect(options.faults).toHaveLength(1);
      expect(options.faults[0]).toMatchObject({ consumer: 'consumer-3', from: 0.5 });
      expect(options.json).toBe(true);
    }
    const partition4 = runs.find(
      (r) => r.experiment === 'network' && r.settings.fault === 'partition' && r.settings.size === 4,
    )!;
    expect(partition4.options.faults).toEqual([{ kind: 'partition', consumer: 'consumer-3', from: 0.5, to: 4.5 }]);
    const loss20 = runs.find(
      (r) => r.experiment === 'network' && r.settings.fault === 'loss' && r.settings.size === 20,
    )!;
    expect(loss20.options.faults).toEqual([{ kind: 'loss', consumer: 'consumer-3', from: 0.5, to: 2.5, lossPct: 20 }]);
  });

  test('loss 0 is the baseline: the same window through the relay, nothing dropped', () => {
    const baseline = runs.find(
      (r) => r.experiment === 'network' && r.settings.fault === 'loss' && r.settings.size === 0,
    )!;
    expect(baseline.options.faults).toEqual([{ kind: 'loss', consumer: 'consumer-3', from: 0.5, to: 2.5, lossPct: 0 }]);
    // Said as what it is, never as a flag the CLI refuses (--loss takes 1-100): its log line, the report's label.
    expect(describeFault(baseline.options.faults[0]!)).toBe('consumer-3@0.5-2.5 through a relay, no loss');
    expect(faultWindow(baseline.options.faults[0]!)).toBe('through a relay 0.5-2.5 s, no loss');
    expect(describeFault({ ...baseline.options.faults[0]!, lossPct: 5 })).toBe('--loss consumer-3@0.5-2.5:5');
  });

  test('phases scale the windows: --duration 1 starts the faults at 1 s', () => {
    const longer = designExperiments(['network'], { duration: 1, seed: 1 }, { stderrIsTTY: false });
    expect(longer[0]!.options.faults).toEqual([{ kind: 'partition', consumer: 'consumer-3', from: 1, to: 2 }]);
  });
});

/** Events applied with these publish-to-apply latencies (ms): equal ones, so a p99 is exactly that value. */
const latencies = (...ms: number[]) => ({
  appliedAt: Float64Array.from(ms.map((_, i) => 2_000 + i)),
  latencyMs: Float64Array.from(ms),
});

describe('a network point', () => {
  const right = held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]);
  function run(consumer3: ReturnType<typeof held>, staleMs?: number) {
    const g = gathered(null, [
      ['consumer-1', consumerReport(right, { latency: latencies(4, 4, 4) })],
      ['consumer-2', consumerReport(right, { latency: latencies(9, 9) })],
      [
        'consumer-3',
        consumerReport(consumer3, {
          latency: latencies(800, 800),
          ...(staleMs !== undefined && { staleMs, staleSpans: [] }),
        }),
      ],
    ]);
    g.broker = {
      role: 'broker',
      epoch: 1,
      recovered: null,
      durable: null,
      head: 12,
      lastWriteOffsets: [11, 7, 9, 10, 12, 8],
      digest: '0',
      subscribers: {},
    };
    for (const name of ['consumer-1', 'consumer-2', 'consumer-3'])
      g.broker.subscribers[name] = subscriberEntry({ delivered: 12, lastAccepted: 12 });
    g.consumers = g.consumers.map((c) => ({
      ...c,
      faulted: c.name === 'consumer-3',
      faults: c.name === 'consumer-3' ? [{ kind: 'partition' as const, consumer: c.name, from: 1, to: 2 }] : [],
    }));
    return assembleOutcome(g);
  }

  test("the worst healthy p99 beside the faulted consumer's, its stale time, and the keys wrong over every consumer", () => {
    const stale = run(
      held([5, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]),
      1_240,
    );
    expect(networkPoint(stale, { fault: 'partition', size: 1, mode: 'resync' })).toEqual({
      fault: 'partition',
      size: 1,
      mode: 'resync',
      wrong: 1,
      p99Ms: 9,
      faultedP99Ms: 800,
      staleMs: 1_240,
    });
  });

  test('a mode that does not track staleness gives null, not 0', () => {
    expect(networkPoint(run(right), { fault: 'loss', size: 20, mode: 'lossy' })).toMatchObject({
      wrong: 0,
      staleMs: null,
    });
  });

  test('a run with no faulted consumer is not a network point', () => {
    const outcome = run(right);
    outcome.consumers.forEach((c) => (c.faulted = false));
    expect(() => networkPoint(outcome, { fault: 'loss', size: 0, mode: 'lossy' })).toThrow(/no faulted consumer/);
  });
});

describe('the network table', () => {
  const points: NetworkPoint[] = [
    { fault: 'partition', size: 1, mode: 'lossy', wrong: 212, p99Ms: 12.4, faultedP99Ms: 35, staleMs: null },
    { fault: 'partition', size: 1, mode: 'resync', wrong: 0, p99Ms: 11, faultedP99Ms: 40.6, staleMs: 512 },
    { fault: 'partition', size: 4, mode: 'resync', wrong: null, p99Ms: 11, faultedP99Ms: null, staleMs: 3_900 },
    { fault: 'loss', size: 20, mode: 'lossy', wrong: 0, p99Ms: 9.5, faultedP99Ms: 61.2, staleMs: null },
  ];
  const document = experimentsDocument(
    points.map((point) => ({ experiment: 'network' as const, point })),
    { duration: 0.5, seed: 1, design: { network: { idleTimeout: 2 } } },
  );

  test('--json: experiments.network.points as measured', () => {
    expect(document.experiments).toEqual({ network: { points } });
  });

  test('text: a row per point, ms rounded, - where unknown or not tracked; the idle timeout the run used', () => {
    const text = renderExperiments(document);
    const rows = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows).toContainEqual(['fault', 'mode', 'wrong', 'healthy p99 ms', 'faulted p99 ms', 'stale ms']);
    expect(rows).toContainEqual(['partition 1 s', 'lossy', '212', '12', '35', '-']);
    expect(rows).toContainEqual(['partition 1 s', 'resync', '0', '11', '41', '512']);
    expect(rows).toContainEqual(['partition 4 s', 'resync', '-', '11', '-', '3900']);
    expect(rows).toContainEqual(['loss 20 %', 'lossy', '0', '10', '61', '-']);
    expect(text).toContain('(QUIC idle timeout 2 s)');
  });

  test('HTML: wrong keys, the faulted p99 and the stale time, each by fault with a bar per mode', () => {
    const page = renderExperimentsHtml(document);
    expect(page.match(/<svg /g)).toHaveLength(3);
    expect(page).toContain('<title>lossy partition 1 s: 212</title>');
    expect(page).toContain('<title>resync partition 1 s: 40.6</title>');
    expect(page).toContain('<title>resync partition 1 s: 512</title>');
    expect(page).not.toContain('<title>lossy loss 20 %: null</title>');
  });
});
