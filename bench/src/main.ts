/**
 * npm run bench [-- --quick] [--runs N] [--out PATH] [--only relay|peers]
 *
 * The stack's limits and the demo's numbers, measured side by side in one
 * invocation, reported as ratios (this 2-core machine is shared and noisy;
 * absolute figures drift). Each figure is the median of --runs runs, with min
 * and max. Results go to bench/results.json and a markdown table on stdout.
 * --only SECTION measures that section alone and stores it into the results
 * already at --out, every other figure kept as it was measured.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { max, median, min } from 'simple-statistics';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import {
  brokerFanout,
  DEFAULT_DEMO_SECONDS,
  demoWallRatio,
  firehose,
  overheadSeconds,
  resyncEfficiency,
  stallRun,
  type FirehosePoint,
} from './demo.js';
import {
  at400,
  FIREHOSE_RATE,
  fanoutPair,
  firehoseRun,
  firehoseSeconds,
  HOLD_KEYS,
  HOLD_MS,
  LARGE_DATAGRAM as LARGE,
  SMALL_DATAGRAM as SMALL,
} from './perf-sections.js';
import { keptUp, scale, type ScalePoint } from './scale.js';
import { DEFAULTS, type RawOptions } from '@state-divergence/orchestrator';
import type { Mode } from '@state-divergence/protocol';
import { pingPong, singleStream } from './stack.js';
import {
  renderBenchTable,
  round,
  type BenchResults,
  type CpuFigures,
  type Figure,
  type HoldFigures,
  type RelayFigures,
} from './table.js';
import type { CpuPerEvent } from './cpu-window.js';
import { insaneFigures } from './sanity.js';
import { appendPerSec, backfillReadPerSec, commitLatency, POLICIES, type PolicyKey } from './durable.js';
import { relayCost } from './relay.js';
import { measurePeers } from './peers-section.js';
import { exitFlushed } from '@state-divergence/runtime';

const argv = yargs(hideBin(process.argv))
  .scriptName('bench')
  .options({
    quick: {
      type: 'boolean',
      default: false,
      describe:
        'One run of each, short: the smoke test of the benchmark itself (exit 1 if a figure is missing or insane)',
    },
    runs: { type: 'number', describe: 'Runs per figure [default: 3, or 1 with --quick]' },
    only: {
      choices: ['relay', 'peers'] as const,
      describe:
        'Measure this section alone and store it into the results already at --out, keeping every other figure ' +
        '(the whole bench takes many minutes)',
    },
    out: {
      type: 'string',
      describe:
        'Where to write the JSON results [default: bench/results.json; with --quick, bench/results-quick.json, ' +
        'so a smoke run never replaces the measured results docs/RESULTS.md is generated from]',
    },
  })
  .strict()
  .parseSync();

const quick = argv.quick;
const out = argv.out ?? fileURLToPath(new URL(quick ? '../results-quick.json' : '../results.json', import.meta.url));
const runs = argv.runs ?? (quick ? 1 : 3);
const seconds = quick ? 1 : 3;
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

const figure = (values: number[]): Figure => ({
  median: round(median(values)),
  min: round(min(values)),
  max: round(max(values)),
  runs: values.map((v) => round(v)),
});

async function repeat(label: string, fn: () => Promise<number>): Promise<Figure> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    progress(`${label} (${i + 1}/${runs})`);
    values.push(await fn());
  }
  return figure(values);
}

/** Runs a paired measurement `runs` times and returns a figure per field. */
async function repeatMany<K extends string>(
  label: string,
  fn: () => Promise<Record<K, number>>,
): Promise<Record<K, Figure>> {
  const collected: Array<Record<K, number>> = [];
  for (let i = 0; i < runs; i++) {
    progress(`${label} (${i + 1}/${runs})`);
    collected.push(await fn());
  }
  return figuresOf(collected);
}

/** A figure per field of runs that each measured the same fields. */
function figuresOf<K extends string>(collected: Array<Record<K, number>>): Record<K, Figure> {
  const keys = Object.keys(collected[0]!) as K[];
  return Object.fromEntries(keys.map((k) => [k, figure(collected.map((c) => c[k]))])) as Record<K, Figure>;
}

/** One side of the hold's A/B: only its figures (HOLD_KEYS). */
function holdFigures(all: Record<string, Figure>): HoldFigures {
  return Object.fromEntries(HOLD_KEYS.map((k) => [k, all[k]!])) as HoldFigures;
}

/** The firehose's side of the hold's A/B: the healthy consumers' drops and the broker's CPU per event, per run. */
function firehoseFigures(points: FirehosePoint[]): Pick<HoldFigures, 'firehoseDrops' | 'firehoseCpuBroker'> {
  return {
    firehoseDrops: figure(points.map((p) => p.healthyDrops)),
    firehoseCpuBroker: figure(points.map((p) => p.cpu?.broker ?? Number.NaN)),
  };
}

/** (9) The fault relay: its CPU per datagram carried for one consumer's link, at the default event rate and at a fast
 * one. */
const RELAY_RATES = { default: DEFAULTS.rate, fast: 10_000 } as const;
async function measureRelay(): Promise<RelayFigures> {
  const measured = await repeatMany(
    `fault relay: CPU per datagram, one consumer through it at ${RELAY_RATES.default}/s and ${RELAY_RATES.fast}/s`,
    async () => {
      const figures: Record<string, number> = {};
      for (const key of ['default', 'fast'] as const) {
        const point = await relayCost(RELAY_RATES[key], seconds);
        figures[`micros.${key}`] = point.microsPerDatagram;
        figures[`datagrams.${key}`] = point.datagramsPerSec;
        figures[`cpu.${key}`] = point.cpuPercent;
        figures[`events.${key}`] = point.eventsPerSec;
      }
      return figures;
    },
  );
  const pair = (prefix: string) => ({ default: measured[`${prefix}.default`]!, fast: measured[`${prefix}.fast`]! });
  return {
    rates: RELAY_RATES,
    microsPerDatagram: pair('micros'),
    datagramsPerSec: pair('datagrams'),
    cpuPercent: pair('cpu'),
    eventsPerSec: pair('events'),
  };
}

/** Writes the results and their table, then exits 1 if a figure is missing or insane. */
async function finish(results: BenchResults): Promise<never> {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(renderBenchTable(results).join('\n') + '\n');
  const problems = insaneFigures(results);
  for (const problem of problems) process.stderr.write(`bench: ${problem}\n`);
  // The table on a pipe is still in this process here: exitFlushed waits for it.
  return exitFlushed(problems.length === 0 ? 0 : 1, 'bench');
}

if (argv.only !== undefined) {
  let stored: BenchResults;
  try {
    stored = JSON.parse(readFileSync(out, 'utf8')) as BenchResults;
  } catch {
    process.stderr.write(
      `bench: --only ${argv.only} stores into the results at ${out}, which cannot be read: run the whole bench first\n`,
    );
    stored = await exitFlushed(2, 'bench'); // never returns: the assignment only tells the compiler so
  }
  await finish(
    argv.only === 'relay'
      ? { ...stored, relay: await measureRelay() }
      : { ...stored, peers: await measurePeers(quick, progress) },
  );
}

const started = performance.now();

// (1) the stack itself, and what the datagram size buys on one stream
const stack = {
  quic1: await repeat('QUIC, 1 frame per write', () => singleStream('quic', 1, seconds)),
  quic64: await repeat('QUIC, 64 frames per write', () => singleStream('quic', 64, seconds)),
  tcp64: await repeat('TCP, 64 frames per write', () => singleStream('tcp', 64, seconds)),
  ...(await repeatMany('QUIC, 256 frames per write, 1,350- vs 16,384-byte datagrams', async () => ({
    quic256: await singleStream('quic', 256, seconds, SMALL),
    quic256Large: await singleStream('quic', 256, seconds, LARGE),
  }))),
};

// (2) fan-out: the broker against a raw QUIC fan-out with the same batching and the same
// datagrams, each pair measured back to back in every run so their ratios share the machine's mood
const fanoutCounts = quick ? [1, 3] : [1, 3, 10];
const fanout: Record<string, { broker: Figure }> = {};
for (const n of fanoutCounts.filter((n) => n !== 3)) {
  fanout[n] = { broker: await repeat(`broker fan-out, lossless, ${n} consumer(s)`, () => brokerFanout(n, seconds)) };
}
const pairs = await repeatMany('fan-out to 3: broker and raw QUIC, 1,350- and 16,384-byte datagrams', () =>
  fanoutPair(seconds),
);
fanout[3] = { broker: pairs.broker };
const ratio3 = pairs.ratio.median;
const transport = {
  stream: {
    small: stack.quic256,
    large: stack.quic256Large,
    speedup: round(stack.quic256Large.median / stack.quic256.median),
  },
  fanout3: {
    broker: pairs.broker,
    raw: pairs.raw,
    brokerLarge: pairs.brokerLarge,
    rawLarge: pairs.rawLarge,
    ratioLarge: pairs.ratioLarge,
    rawSpeedup: pairs.rawSpeedup,
    speedup: pairs.speedup,
  },
  datagramSpeedup: pairs.speedup.median,
};

// (3) latency at 400/s with 5 consumers, before and during another consumer's stall
const ping = await repeatMany('raw QUIC ping-pong', async () => pingPong(quick ? 300 : 2000));
// Each run's default (group commit alone) and --coalesce-ms HOLD_MS back to back, so the A/B of the hold
// (cpu.holdAB) shares the machine's mood run by run.
type At400 = Awaited<ReturnType<typeof at400>>;
const groupAt400: At400[] = [];
const heldAt400: At400[] = [];
for (let i = 0; i < runs; i++) {
  progress(`latency and CPU per event at 400/s, 5 consumers (lossy, 2 s phases) (${i + 1}/${runs})`);
  groupAt400.push(await at400(quick));
  progress(`the same at --coalesce-ms ${HOLD_MS} (${i + 1}/${runs})`);
  heldAt400.push(await at400(quick, { coalesceMs: HOLD_MS }));
}
const { cpuBroker, cpuConsumer, cpuPublisher, ...latency } = figuresOf(groupAt400);
const held = figuresOf(heldAt400);
const stallP99Ratio = latency.stallP99.median / latency.beforeP99.median;
const p99VsPingPong = latency.stallP99.median / ping.p99.median;

// (4) orchestration overhead
const overhead = await repeat('orchestration overhead (--duration 1, one mode, through the CLI)', overheadSeconds);

// (4) the default demo, end to end, against its phases (every column: over a minute per run, so not in --quick)
const demoWall = quick
  ? null
  : await repeat(`the default demo (npm run demo), wall time ÷ ${DEFAULT_DEMO_SECONDS} s`, demoWallRatio);

// (5) scale: healthy consumers in pools (the default --pool-size), and for comparison a process per
// consumer (--pool-size 1) where memory allows it (~70 MiB a process: 512 would need ~36 GiB)
const scaleCounts = quick ? [10] : [10, 25, 64, 128, 256, 512];
const scalePoints: ScalePoint[] = [];
for (const n of scaleCounts) {
  progress(`scale: ${n} consumers, resync at 400/s, pooled`);
  scalePoints.push(await scale(n, 1));
}
const lonePoints: ScalePoint[] = [];
for (const n of quick ? [] : [10, 25, 64]) {
  progress(`scale: ${n} consumers, resync at 400/s, a process each (--pool-size 1)`);
  lonePoints.push(await scale(n, 1, 1));
}
const ok = scalePoints.filter(keptUp).map((p) => p.consumers);

// (7) the seed's firehose: 12 keys at 20,000/s to 3 consumers, and the highest rate at which the healthy ones keep up
const firehoseRuns: FirehosePoint[] = [];
const heldFirehoseRuns: FirehosePoint[] = [];
for (let i = 0; i < runs; i++) {
  progress(`firehose: 12 keys, ${FIREHOSE_RATE}/s, 3 consumers, 16,384-byte datagrams (${i + 1}/${runs})`);
  firehoseRuns.push(await firehoseRun(quick));
  progress(`the same at --coalesce-ms ${HOLD_MS} (${i + 1}/${runs})`);
  heldFirehoseRuns.push(await firehoseRun(quick, { coalesceMs: HOLD_MS }));
}
const ladder: FirehosePoint[] = [];
for (const rate of quick ? [] : [2_500, 5_000, 7_500, 10_000, 12_500, 15_000]) {
  progress(`firehose ladder: ${rate}/s`);
  ladder.push(await firehose(rate, firehoseSeconds(quick)));
}
const holds = (p: FirehosePoint) => p.healthyDrops === 0 && p.achievedRatio >= 0.95;
const firstFailing = ladder.findIndex((p) => !holds(p));
const maxRateHeld = (firstFailing === -1 ? ladder : ladder.slice(0, firstFailing)).at(-1)?.rate ?? null;
const firehoseResult = {
  rate: FIREHOSE_RATE,
  achievedRatio: round(median(firehoseRuns.map((p) => p.achievedRatio))),
  healthyDrops: firehoseRuns.map((p) => p.healthyDrops),
  healthyP99Ms: firehoseRuns.map((p) => p.healthyP99Ms),
  runs: firehoseRuns,
  ladder,
  /** The highest rate of the ladder at which, and at every rate below it, healthy consumers dropped nothing and the
   * publisher kept 95 % of its rate. */
  maxRateHeld,
};
const maxConsumersNoDrop = ok.length > 0 ? Math.max(...ok) : 0;

// CPU per event of each role, over each run's steady window (cpu-window.ts): section (3)'s runs at 400/s and the
// firehose's
const firehoseCpu = (role: keyof CpuPerEvent) => figure(firehoseRuns.map((p) => p.cpu?.[role] ?? Number.NaN));
const cpu: CpuFigures = {
  microsPerEvent: {
    broker: { at400: cpuBroker, firehose: firehoseCpu('broker') },
    consumer: { at400: cpuConsumer, firehose: firehoseCpu('consumer') },
    publisher: { at400: cpuPublisher, firehose: firehoseCpu('publisher') },
  },
  holdAB: {
    holdMs: HOLD_MS,
    group: holdFigures({ ...latency, cpuBroker, cpuConsumer, cpuPublisher, ...firehoseFigures(firehoseRuns) }),
    hold: holdFigures({ ...held, ...firehoseFigures(heldFirehoseRuns) }),
  },
};

// (6) resync efficiency
const resync = await repeatMany('resync efficiency (2 s phases)', () => resyncEfficiency(quick ? 1 : 2));

// (8) the broker's durable log, in this process: appends/s with group commit, append→durable at
// 400/s, backfill reads; each policy's figures measured back to back in every run
const policyKeys = Object.keys(POLICIES) as PolicyKey[];
await appendPerSec('none', 0.2); // warm-up (JIT, the allocator): else the first policy measured pays for it
const durableRuns = await repeatMany('durable log: appends/s, append→durable at 400/s, backfill reads', async () => {
  const figures: Record<string, number> = {};
  for (const key of policyKeys) figures[`append.${key}`] = await appendPerSec(POLICIES[key], quick ? 0.4 : 2);
  for (const key of policyKeys) {
    const { p50, p99 } = await commitLatency(POLICIES[key], 400, quick ? 0.6 : 3);
    figures[`p50.${key}`] = p50;
    figures[`p99.${key}`] = p99;
  }
  figures['backfill'] = await backfillReadPerSec(quick ? 50_000 : 500_000);
  return figures;
});
const byPolicy = (prefix: string) =>
  Object.fromEntries(policyKeys.map((key) => [key, durableRuns[`${prefix}.${key}`]!])) as Record<PolicyKey, Figure>;

// (8) the same end to end, through real processes: the default stall (5 consumers at 400/s, as (3))
// under durable per fsync policy, with lossy beside it, each run's four back to back. --quick's
// 1 s phases stall for 800 events: a 256-event queue makes the back-fill certain however loaded.
const stallShape = { consumers: 5, rate: 400, duration: quick ? 1 : 2, ...(quick ? { queueCapacity: 256 } : {}) };
const endToEnd = await repeatMany(
  `durable end to end: healthy publish→apply in the stall, lossy then each fsync policy (5 consumers, 400/s, ` +
    `${stallShape.duration} s phases)`,
  async () => {
    const figures: Record<string, number> = {};
    const columns: Array<[string, Mode, RawOptions]> = [
      ['lossy', 'lossy', stallShape],
      ...policyKeys.map((key): [string, Mode, RawOptions] => [key, 'durable', { ...stallShape, fsync: POLICIES[key] }]),
    ];
    for (const [key, mode, raw] of columns) {
      const point = await stallRun(mode, raw);
      for (const [name, value] of Object.entries(point)) figures[`${name}.${key}`] = value;
    }
    return figures;
  },
);
const e2e = (prefix: string, keys: string[]) =>
  Object.fromEntries(keys.map((key) => [key, endToEnd[`${prefix}.${key}`]!]));
const withLossy = (prefix: string) => e2e(prefix, ['lossy', ...policyKeys]) as Record<PolicyKey | 'lossy', Figure>;
const durable = {
  appendPerSec: byPolicy('append'),
  commitP50Ms: byPolicy('p50'),
  commitP99Ms: byPolicy('p99'),
  backfillReadPerSec: durableRuns['backfill']!,
  publishP50Ms: withLossy('p50'),
  publishP99Ms: withLossy('p99'),
  publisherInStall: withLossy('rateInStall'),
  stalledBackfills: e2e('stalledBackfills', policyKeys) as Record<PolicyKey, Figure>,
  wrongAtEnd: e2e('wrongAtEnd', policyKeys) as Record<PolicyKey, Figure>,
  phaseSeconds: stallShape.duration,
};

const results: BenchResults = {
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    quick,
    runs,
    secondsPerThroughputSample: seconds,
  },
  stack,
  fanout: { ...fanout, 3: { broker: pairs.broker, raw: pairs.raw }, ratio3: round(ratio3), ratio3Runs: pairs.ratio },
  transport,
  firehose: firehoseResult,
  cpu,
  latency: { pingPong: ping, ...latency, stallP99Ratio: round(stallP99Ratio), p99VsPingPong: round(p99VsPingPong) },
  overheadSeconds: overhead.median,
  overhead,
  demoWallRatio: demoWall?.median ?? null,
  demoWall,
  demoPhaseSeconds: DEFAULT_DEMO_SECONDS,
  scale: { points: scalePoints, maxConsumersNoDrop, lone: lonePoints },
  resync: { ...resync, bytesRatio: resync.bytesRatio.median, bytesRatioRuns: resync.bytesRatio },
  durable,
  relay: await measureRelay(),
  peers: await measurePeers(quick, progress),
  wallSeconds: round((performance.now() - started) / 1000, 1),
};
await finish(results);
