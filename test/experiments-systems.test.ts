/**
 * The systems experiment without starting a process: the bisection of a stall's edge, the grid's
 * bracket and figures, the writes a consumer missed as offsets, each system's predicted edge, and
 * the text, --json and HTML drawn from fixture points.
 */
import {
  bisectStall,
  edgeFigures,
  experimentsDocument,
  gridBracket,
  renderExperimentsHtml,
  renderSystemsSection,
  systemsMissedRanges,
  withinQuarter,
  type SystemsEdge,
  type SystemsPoint,
} from '@state-divergence/orchestrator/internal';
import { renderExperiments } from '@state-divergence/orchestrator';
import { knobValues, systemNamed } from '@state-divergence/systems';

function point(over: Partial<SystemsPoint>): SystemsPoint {
  return {
    system: 'redis-streams',
    idiom: 'naive',
    stallSeconds: 2,
    rate: 400,
    role: 'grid',
    wrong: 0,
    catchingUp: 0,
    expectedWrong: 0,
    missed: 0,
    unexplained: 0,
    signals: 'none',
    heldReceive: 197,
    heldServerSend: 0,
    closedByServer: 0,
    stallRatePerSec: 400,
    ...over,
  };
}

describe('bisectStall', () => {
  test('narrows a bracket to the resolution, each try halfway, and ends on the shortest wrong stall', async () => {
    const edge = 3.3;
    const tried: number[] = [];
    const found = await bisectStall({ correct: 2, wrong: 8 }, 0.5, async (s) => {
      tried.push(s);
      return s >= edge;
    });
    expect(found.tried).toEqual(tried);
    expect(tried).toEqual([5, 3.5, 2.75, 3.15]);
    expect(found).toMatchObject({ correct: 3.15, wrong: 3.5 });
    expect(found.wrong - found.correct).toBeLessThanOrEqual(0.5);
  });

  test('a bracket already within the resolution runs nothing', async () => {
    const found = await bisectStall({ correct: 2, wrong: 2.4 }, 0.5, () => {
      throw new Error('no run expected');
    });
    expect(found).toEqual({ correct: 2, wrong: 2.4, tried: [] });
  });
});

describe("the grid's bracket and figures", () => {
  test('the shortest wrong stall and the longest correct one below it; none wrong: null', () => {
    const grid = [
      point({ stallSeconds: 2 }),
      point({ stallSeconds: 8, wrong: 700 }),
      point({ stallSeconds: 20, wrong: 900 }),
    ];
    expect(gridBracket(grid)).toEqual({ correct: 2, wrong: 8 });
    expect(gridBracket([point({ stallSeconds: 2, wrong: 5 })])).toEqual({ correct: 0, wrong: 2 });
    expect(gridBracket([point({ stallSeconds: 2 }), point({ stallSeconds: 8 })])).toBeNull();
  });

  test("bytes per second from the shortest stall at the rate, buffers from the system's fullest point", () => {
    const atRate = [
      point({ stallSeconds: 2, heldReceive: 100_000, heldServerSend: 4_000 }),
      point({ stallSeconds: 8, heldReceive: 150_000, heldServerSend: 250_000, stallRatePerSec: 398 }),
    ];
    const fuller = point({ rate: 2000, stallSeconds: 20, heldReceive: 1_000_000, heldServerSend: 4_000_000 });
    expect(edgeFigures(atRate, [...atRate, fuller])).toEqual({
      rate: 399,
      bytesPerSecond: 52_000,
      bufferBytes: 5_000_000,
    });
  });

  test('within a quarter of the prediction, or unknown without both', () => {
    expect(withinQuarter(3, 2.5)).toBe(true);
    expect(withinQuarter(3.5, 2.5)).toBe(false);
    expect(withinQuarter(null, 2.5)).toBeNull();
    expect(withinQuarter(3, null)).toBeNull();
  });
});

test('the writes a consumer missed, as offsets in the system order, after its last relist', () => {
  const bySeq = new Map(
    [10, 11, 12, 13, 14, 15].map((seq, i) => [
      seq,
      { key: `k${seq}`, value: 'v', seq, atMs: i * 100, issuedMs: i * 100 },
    ]),
  );
  // Applied 10 and 14; 11-13 and 15 never.
  expect(systemsMissedRanges(bySeq, [10, 14], -1)).toEqual({
    ranges: [
      [2, 4],
      [6, 6],
    ],
    published: 6,
    missed: 4,
  });
  // A relist at 250 ms covered the writes acknowledged by then (offsets 2 and 3).
  expect(systemsMissedRanges(bySeq, [10, 14], 250).ranges).toEqual([
    [4, 4],
    [6, 6],
  ]);
});

describe("each system's predicted edge, from its own limit", () => {
  const figures = { rate: 400, bytesPerSecond: 52_000, bufferBytes: 5_000_000 };
  const predict = (name: string, knobs: Record<string, string> = {}) => {
    const system = systemNamed(name);
    return system.predictEdge!({ ...figures, knobs: knobValues(system, knobs) });
  };

  test('redis-streams: MAXLEN ÷ rate; no trim, no edge', () => {
    expect(predict('redis-streams').seconds).toBe(2.5);
    expect(predict('redis-streams').limit).toContain('MAXLEN ~1000');
    expect(predict('redis-streams', { maxlen: '0' }).seconds).toBeNull();
  });

  test('nats: the kernel buffers filled, then the write deadline', () => {
    const edge = predict('nats');
    expect(edge.seconds).toBeCloseTo(5_000_000 / 52_000 + 10, 5);
    expect(edge.limit).toContain('write_deadline');
    expect(predict('nats', { 'write-deadline': '500ms' }).seconds).toBeCloseTo(5_000_000 / 52_000 + 0.5, 5);
  });

  test('redis-pubsub: the earlier of the hard limit and the soft limit held for its seconds', () => {
    // 64kb 16kb 1: the hard limit is reached (97.4 s) before the soft one has been held for its second (97.5 s).
    const tight = predict('redis-pubsub', { 'client-output-buffer-limit-pubsub': '64kb 16kb 1' });
    expect(tight.seconds).toBeCloseTo((5_000_000 + 64 * 1024) / 52_000, 5);
    expect(tight.limit).toContain('hard 64kb');
    // The defaults, 32mb 8mb 60: over 8 MB for 60 s comes first.
    const defaults = predict('redis-pubsub');
    expect(defaults.seconds).toBeCloseTo((5_000_000 + 8 * 1024 ** 2) / 52_000 + 60, 5);
    expect(defaults.limit).toContain('soft 8mb');
  });

  test('etcd only with compaction; nats-kv never', () => {
    expect(predict('etcd').seconds).toBeNull();
    expect(predict('etcd', { 'auto-compaction-retention': '10s' }).seconds).toBe(10);
    expect(predict('etcd', { 'auto-compaction-retention': '2000', 'auto-compaction-mode': 'revision' }).seconds).toBe(
      5,
    );
    expect(predict('nats-kv').seconds).toBeNull();
  });
});

describe('the rendering, from fixture points', () => {
  const points = [
    point({ stallSeconds: 2 }),
    point({ stallSeconds: 3.5, role: 'edge', wrong: 310, expectedWrong: 322.4, missed: 1234 }),
    point({ stallSeconds: 8, wrong: 700, expectedWrong: 712.5, missed: 2400 }),
    point({ idiom: 'careful', stallSeconds: 8, signals: 'trimmed 1, relist 1' }),
    point({ system: 'nats', stallSeconds: 8, heldReceive: 200_000, heldServerSend: 300_000, closedByServer: 1 }),
  ];
  const edges: SystemsEdge[] = [
    {
      system: 'redis-streams',
      rate: 400,
      upTo: 8,
      edgeSeconds: 3.5,
      correctBelow: 3,
      runs: 3,
      prediction: { seconds: 2.5, limit: 'MAXLEN ~1000 ÷ 400/s = 2.5 s' },
      withinQuarter: false,
    },
    {
      system: 'nats',
      rate: 400,
      upTo: 8,
      edgeSeconds: null,
      correctBelow: 8,
      runs: 0,
      prediction: { seconds: 106, limit: 'write_deadline: kernel … = 106 s' },
      withinQuarter: null,
    },
  ];
  const section = { points, edges, skipped: ['etcd: not installed (apt-get install etcd-server)'] };

  test('the text: a row per point, bisection runs starred, each edge beside its prediction', () => {
    const text = renderSystemsSection(section).join('\n');
    expect(text).toMatch(/redis-streams\s+naive\s+400\s+3\.5\*\s+WRONG 310\s+322\.4\s+1234/);
    expect(text).toMatch(/nats\s+naive\s+400\s+8\s+correct.*rx 200,000 \+ tx 300,000, closed/);
    expect(text).toContain('redis-streams at 400/s: 3.5 s (correct at 3 s); predicted: MAXLEN ~1000 ÷ 400/s');
    expect(text).toContain('off by more than 25 %');
    expect(text).toContain('nats at 400/s: none up to 8 s; predicted: write_deadline');
    expect(text).toContain('agrees (beyond the stalls tried)');
    expect(text).toContain('not installed: etcd');
  });

  test('the document carries the section as experiments.systems, its text and HTML draw it', () => {
    const document = experimentsDocument([], { duration: 0.5, seed: 1, design: null }, section);
    expect(JSON.parse(JSON.stringify(document)).experiments.systems.points).toHaveLength(points.length);
    expect(renderExperiments(document)).toContain('7. systems:');
    const html = renderExperimentsHtml(document);
    expect(html.match(/<figure>/g)).toHaveLength(2);
    // The grid coloured by outcome: 2 wrong cells red, 3 correct green; the bisection run dashed.
    expect(html.match(/fill="#dc2626"/g)).toHaveLength(2);
    expect(html.match(/fill="#16a34a"/g)).toHaveLength(3);
    expect(html).toContain('stroke-dasharray');
    expect(html).toContain('Deciding limit: MAXLEN ~1000 ÷ 400/s = 2.5 s');
  });
});
