import {
  bestPeer,
  heldRate,
  ratioToBest,
  renderPeerTable,
  type PeerFigures,
  type PeerRow,
  type RampStep,
} from '../bench/dist/peer-figures.js';
import { capacityLines, type BenchResults } from '../bench/dist/table.js';

const step = (rate: number, dropped = 0, achievedRatio = 1): RampStep => ({ rate, achievedRatio, dropped });
const row = (name: string, kind: PeerRow['kind'], fanout: number | null, p50: number, cpu: number): PeerRow => ({
  name,
  kind,
  missing: null,
  ramp: [step(400)],
  fanoutNoDrop: fanout,
  latency: { before: { p50, p99: p50 * 4 }, during: { p50, p99: p50 * 5 }, cpuMicrosPerDelivery: cpu, peakRssMiB: 20 },
});
const missing = (name: string): PeerRow => ({
  name,
  kind: 'system',
  missing: `${name} is not installed: apt-get install -y ${name}`,
  ramp: [],
  fanoutNoDrop: null,
  latency: null,
});
const figures = (rows: PeerRow[]): PeerFigures => ({
  consumers: 3,
  idiom: 'naive',
  rampRates: [400, 1_000, 2_000],
  rampSeconds: 2,
  latencyRate: 400,
  phaseSeconds: 2,
  rows,
  wallSeconds: 100,
});

describe('the peer table: each figure beside the best real system measured in the same run', () => {
  test('a ramp holds up to the step before its first miss, a drop or a publisher under 95 % of the rate', () => {
    expect(heldRate([step(400), step(1_000), step(2_000, 3)])).toBe(1_000);
    expect(heldRate([step(400), step(1_000, 0, 0.9), step(2_000)])).toBe(400);
    expect(heldRate([step(400, 1)])).toBeNull();
    expect(heldRate([step(400), step(1_000)])).toBe(1_000);
    // A bisection's step comes after the miss it splits: held or not, it is read in the order of rates.
    expect(heldRate([step(400), step(1_000), step(2_000, 3), step(1_500)])).toBe(1_500);
    expect(heldRate([step(400), step(1_000), step(2_000, 3), step(1_500, 1)])).toBe(1_000);
  });

  test('the best is the real systems’ best (more fan-out, less latency and CPU); our broker is never its own yardstick', () => {
    const rows = [
      row('broker lossy', 'broker', 9_000, 0.1, 5),
      row('a', 'system', 4_000, 2, 40),
      row('b', 'system', 2_000, 1, 20),
    ];
    expect(bestPeer(rows, 'fanout')).toEqual({ name: 'a', value: 4_000 });
    expect(bestPeer(rows, 'beforeP50')).toEqual({ name: 'b', value: 1 });
    expect(bestPeer(rows, 'cpu')).toEqual({ name: 'b', value: 20 });
    expect(ratioToBest(rows, rows[0]!, 'fanout')).toBeCloseTo(2.25);
    expect(ratioToBest(rows, rows[0]!, 'cpu')).toBeCloseTo(0.25);
    expect(ratioToBest(rows, rows[2]!, 'fanout')).toBeCloseTo(0.5);
  });

  test('with no real system measured there is no ratio', () => {
    const rows = [row('broker lossy', 'broker', 9_000, 0.1, 5), missing('etcd')];
    expect(bestPeer(rows, 'fanout')).toBeNull();
    expect(ratioToBest(rows, rows[0]!, 'fanout')).toBeNull();
  });

  test('a row per target, ratios in brackets, a system not installed listed as such, the ramp’s top marked ≥', () => {
    const lines = renderPeerTable(
      figures([row('broker lossy', 'broker', 1_000, 25, 60), row('redis', 'system', 2_000, 0.5, 20), missing('etcd')]),
    );
    const table = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| target'));
    expect(table).toHaveLength(3);
    expect(table[0]).toBe(
      '| broker lossy | 1000 (×0.50) | 25.0 (×50.00) / 100.0 (×50.00) | 25.0 (×50.00) / 125.0 (×50.00) | ' +
        '60.0 (×3.00) | 20 (×1.00) |',
    );
    expect(table[1]).toMatch(/^\| redis \| ≥ 2000 \(×1\.00\) \| 0\.5 \(×1\.00\)/);
    expect(table[2]).toBe('| etcd | etcd is not installed: apt-get install -y etcd | | | | |');
    expect(lines.join('\n')).toContain('fan-out redis 2000/s');
  });

  test('our capacity as a fraction of the limits the same run measured: raw QUIC, the fastest system', () => {
    const fig = (median: number) => ({ median, min: median, max: median, runs: [median] });
    const results = {
      transport: { fanout3: { raw: fig(20_000), rawLarge: fig(40_000) } },
      fanout: { 3: { broker: fig(10_000) } },
      firehose: { maxRateHeld: 10_000 },
      peers: figures([row('broker lossy', 'broker', 1_000, 25, 60), row('redis', 'system', 4_000, 0.5, 20)]),
    } as unknown as BenchResults;
    const lines = capacityLines(results);
    expect(lines[0]).toMatch(/broker fan-out to 3 ÷ raw QUIC fan-out to 3 \| 0\.5 \|/);
    expect(lines[1]).toMatch(/firehose\.maxRateHeld ÷ raw QUIC .* \| 0\.25 \(10000 ÷ 40000\/s\) \|/);
    expect(lines[2]).toMatch(
      /broker lossy fan-out to 3 with no drop ÷ the fastest real system's \(redis, 4000\/s\) \| 0\.25 \|/,
    );
    expect(lines).toHaveLength(3);
  });
});
