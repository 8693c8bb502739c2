/**
 * `npm run bench -- --quick` as a smoke test: it runs, writes bench/results.json's
 * shape, and its numbers are sane. It asserts no speed: speed is what the full
 * benchmark reports, on a quiet machine, as ratios.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const BENCH = fileURLToPath(new URL('../bench/dist/main.js', import.meta.url));

test('the quick benchmark runs end to end and reports every named figure', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'state-divergence-bench-')), 'results.json');
  const result = await execa('node', [BENCH, '--quick', '--out', out], { reject: false, env: { NODE_OPTIONS: '' } });
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toMatch(/\| \(2\) fanout\.ratio3 = broker ÷ raw at 3, each run's pair \| [\d.]+ \(/);
  const results = JSON.parse(readFileSync(out, 'utf8'));
  const positive = (value: unknown) => {
    expect(typeof value).toBe('number');
    expect(Number.isFinite(value)).toBe(true);
    expect(value as number).toBeGreaterThan(0);
  };
  positive(results.fanout.ratio3);
  positive(results.latency.stallP99Ratio);
  positive(results.latency.p99VsPingPong);
  positive(results.overheadSeconds);
  positive(results.transport.datagramSpeedup);
  positive(results.firehose.achievedRatio);
  expect(results.firehose.runs[0]).toMatchObject({ rate: 20_000 });
  expect(results.demoWallRatio).toBeNull(); // a minute of demo: the full benchmark's, not --quick's
  positive(results.stack.quic1.median);
  positive(results.stack.tcp64.median);
  // TCP on loopback is orders of magnitude faster than this QUIC library: if not, something measured nothing.
  expect(results.stack.tcp64.median).toBeGreaterThan(results.stack.quic64.median);
  expect(Number.isInteger(results.scale.maxConsumersNoDrop)).toBe(true);
  expect(results.scale.points[0]).toMatchObject({ consumers: 10, completed: true });
  // A delta sends each missed key once: its bytes are those keys' bytes, plus LAG and SYNC_END.
  expect(results.resync.bytesRatio).toBeGreaterThanOrEqual(1);
  expect(results.resync.bytesRatio).toBeLessThan(1.1);
}, 180_000);
