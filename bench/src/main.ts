/**
 * npm run bench [-- --quick] [--runs N] [--out PATH]
 *
 * The stack's limits and the demo's numbers, measured side by side in one
 * invocation, reported as ratios (this 2-core machine is shared and noisy;
 * absolute figures drift). Each figure is the median of --runs runs, with min
 * and max. Results go to bench/results.json and a markdown table on stdout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { max, median, min } from 'simple-statistics';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { brokerFanout, demoRun, overheadSeconds, resyncEfficiency, scale, type ScalePoint } from './demo.js';
import { pingPong, rawFanout, singleStream } from './stack.js';

const argv = yargs(hideBin(process.argv))
  .scriptName('bench')
  .options({
    quick: { type: 'boolean', default: false, describe: 'One run of each, short: a smoke test under a minute' },
    runs: { type: 'number', describe: 'Runs per figure [default: 3, or 1 with --quick]' },
    out: { type: 'string', default: fileURLToPath(new URL('../results.json', import.meta.url)), describe: 'Where to write the JSON results' },
  })
  .strict()
  .parseSync();

const quick = argv.quick;
const runs = argv.runs ?? (quick ? 1 : 3);
const seconds = quick ? 1 : 3;
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

interface Figure {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const figure = (values: number[]): Figure => ({ median: round(median(values)), min: round(min(values)), max: round(max(values)), runs: values.map((v) => round(v)) });

async function repeat(label: string, fn: () => Promise<number>): Promise<Figure> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    progress(`${label} (${i + 1}/${runs})`);
    values.push(await fn());
  }
  return figure(values);
}

/** Runs a paired measurement `runs` times and returns a figure per field. */
async function repeatMany<K extends string>(label: string, fn: () => Promise<Record<K, number>>): Promise<Record<K, Figure>> {
  const collected: Array<Record<K, number>> = [];
  for (let i = 0; i < runs; i++) {
    progress(`${label} (${i + 1}/${runs})`);
    collected.push(await fn());
  }
  const keys = Object.keys(collected[0]!) as K[];
  return Object.fromEntries(keys.map((k) => [k, figure(collected.map((c) => c[k]))])) as Record<K, Figure>;
}

const started = performance.now();

// (1) the stack itself
const stack = {
  quic1: await repeat('QUIC, 1 frame per write', () => singleStream('quic', 1, seconds)),
  quic64: await repeat('QUIC, 64 frames per write', () => singleStream('quic', 64, seconds)),
  tcp64: await repeat('TCP, 64 frames per write', () => singleStream('tcp', 64, seconds)),
};

// (2) fan-out: the broker against a raw QUIC fan-out with the same batching
const fanoutCounts = quick ? [1, 3] : [1, 3, 10];
const fanout: Record<string, { broker: Figure; raw?: Figure }> = {};
for (const n of fanoutCounts) {
  fanout[n] = { broker: await repeat(`broker fan-out, lossless, ${n} consumer(s)`, () => brokerFanout(n, seconds)) };
}
fanout[3]!.raw = await repeat('raw QUIC fan-out to 3 processes, 256 frames per write', () => rawFanout(3, 256, seconds));
const ratio3 = fanout[3]!.broker.median / fanout[3]!.raw!.median;

// (3) latency at 400/s with 5 consumers, before and during another consumer's stall
const ping = await repeatMany('raw QUIC ping-pong', async () => pingPong(quick ? 300 : 2000));
const latency = await repeatMany('latency at 400/s, 5 consumers (lossy, 2 s phases)', async () => {
  const result = await demoRun('lossy', { consumers: 5, rate: 400, duration: quick ? 1 : 2 });
  const before = result.healthyBeforeStall!;
  const during = result.healthyInStall!;
  return { beforeP50: before.p50, beforeP99: before.p99, beforeP999: before.p999, stallP50: during.p50, stallP99: during.p99, stallP999: during.p999 };
});
const stallP99Ratio = latency.stallP99.median / latency.beforeP99.median;
const p99VsPingPong = latency.stallP99.median / ping.p99.median;

// (4) orchestration overhead
const overhead = await repeat('orchestration overhead (--duration 1, one mode, through the CLI)', overheadSeconds);

// (5) scale
const scaleCounts = quick ? [10] : [10, 25, 50];
const scalePoints: ScalePoint[] = [];
for (const n of scaleCounts) {
  progress(`scale: ${n} consumers, resync at 400/s`);
  scalePoints.push(await scale(n, 1));
}
const ok = scalePoints.filter((p) => p.completed && p.verdict === 'valid' && p.healthyDropsOrLags === 0).map((p) => p.consumers);
const maxConsumersNoDrop = ok.length > 0 ? Math.max(...ok) : 0;

// (6) resync efficiency
const resync = await repeatMany('resync efficiency (2 s phases)', () => resyncEfficiency(quick ? 1 : 2));

const results = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version, quick, runs, secondsPerThroughputSample: seconds },
  stack,
  fanout: { ...fanout, ratio3: round(ratio3) },
  latency: { pingPong: ping, ...latency, stallP99Ratio: round(stallP99Ratio), p99VsPingPong: round(p99VsPingPong) },
  overheadSeconds: overhead.median,
  overhead,
  scale: { points: scalePoints, maxConsumersNoDrop },
  resync: { ...resync, bytesRatio: resync.bytesRatio.median },
  wallSeconds: round((performance.now() - started) / 1000, 1),
};
mkdirSync(dirname(argv.out), { recursive: true });
writeFileSync(argv.out, JSON.stringify(results, null, 2) + '\n');

const f = (x: Figure, digits = 0, unit = '') => `${x.median.toFixed(digits)}${unit} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`;
const target = (ok: boolean) => (ok ? 'met' : '**not met**');
const lines = [
  `## Benchmarks (${results.machine.cpus} cores, ${results.machine.model}, Node ${process.version}; median of ${runs}, min–max in brackets${quick ? '; --quick' : ''})`,
  '',
  '| measurement | result | target |',
  '|---|---|---|',
  `| (1) raw QUIC, 1 stream, 64-byte frames, 1 per write | ${f(stack.quic1)} frames/s | |`,
  `| (1) raw QUIC, 64 frames per write | ${f(stack.quic64)} frames/s | |`,
  `| (1) loopback TCP, 64 frames per write | ${f(stack.tcp64)} frames/s | |`,
  ...fanoutCounts.map((n) => `| (2) broker fan-out, lossless, ${n} consumer(s) | ${f(fanout[n]!.broker)} events/s per consumer | |`),
  `| (2) raw QUIC fan-out to 3 processes, 256 per write | ${f(fanout[3]!.raw!)} frames/s per consumer | |`,
  `| (2) fanout.ratio3 = broker ÷ raw at 3 | ${round(ratio3, 2)} | >= 0.5: ${target(ratio3 >= 0.5)} |`,
  `| (3) raw QUIC ping-pong p50 / p99 | ${f(ping.p50, 2, ' ms')} / ${f(ping.p99, 2, ' ms')} | |`,
  `| (3) healthy publish→apply before the stall p50 / p99 / p999 | ${f(latency.beforeP50, 1, ' ms')} / ${f(latency.beforeP99, 1, ' ms')} / ${f(latency.beforeP999, 1, ' ms')} | |`,
  `| (3) healthy publish→apply during the stall p50 / p99 / p999 | ${f(latency.stallP50, 1, ' ms')} / ${f(latency.stallP99, 1, ' ms')} / ${f(latency.stallP999, 1, ' ms')} | |`,
  `| (3) latency.stallP99Ratio = during ÷ before | ${round(stallP99Ratio, 2)} | <= 1.5: ${target(stallP99Ratio <= 1.5)} |`,
  `| (3) latency.p99VsPingPong = during ÷ ping-pong p99 | ${round(p99VsPingPong, 2)} | <= 3: ${target(p99VsPingPong <= 3)} |`,
  `| (4) overheadSeconds (one mode at --duration 1, minus 5 s) | ${f(overhead, 2, ' s')} | < 1.0 s: ${target(overhead.median < 1)} |`,
  ...scalePoints.map(
    (p) =>
      `| (5) ${p.consumers} consumers, resync, 400/s | ${p.completed ? `${p.verdict}; healthy drops+lags ${p.healthyDropsOrLags}; CPU s ${Object.entries(p.byKind).map(([k, v]) => `${k} ${v.cpuSeconds}`).join(', ')}; peak RSS MiB ${Object.entries(p.byKind).map(([k, v]) => `${k} ${v.peakRssMiB}`).join(', ')}` : `did not complete: ${p.error}`} | |`,
  ),
  `| (5) scale.maxConsumersNoDrop | ${maxConsumersNoDrop} | >= 25: ${target(maxConsumersNoDrop >= 25)} |`,
  `| (6) resync.bytesRatio = resync bytes ÷ bytes of the keys missed | ${f(resync.bytesRatio, 3)} | |`,
  `| (6) resync bytes ÷ a full snapshot / ÷ replaying every missed event | ${f(resync.vsFullSnapshot, 2)} / ${f(resync.vsReplay, 2)} | |`,
  '',
  `Wall time ${results.wallSeconds} s. Percentiles: simple-statistics quantileSorted over every sample in the window; the first second of publishing (or half the phase) is excluded as warm-up, and the first 10% of ping-pongs.`,
];
process.stdout.write(lines.join('\n') + '\n');
process.exit(0);
