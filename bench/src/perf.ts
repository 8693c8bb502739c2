/**
 * node bench/dist/perf.js [--only at400,firehose,fanout,hold] [--runs N] [--quick] [-- demo flags as JSON]
 *
 * The bench's CPU and throughput sections alone (perf-sections.ts, the very functions `npm run
 * bench` calls), for measuring one change without the whole bench's quarter of an hour. Each run
 * prints one JSON line with the machine's 1-minute load before it (a throughput figure means
 * little above ~1.5 on two cores); the medians go to stdout at the end. Writes no results file.
 *
 *   --raw '{"coalesceMs": 25}'  extra demo options (RawOptions) for the at400 and firehose runs
 *   --only hold                 the A/B: group commit (the default) beside --coalesce-ms 25, each run's at400
 *                               and firehose pairs back to back, with raw QUIC ping-pong (the latency target's unit)
 *   --max-load 1.5              before each run, wait (up to --wait-minutes) for the 1-minute load to fall below it
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from 'simple-statistics';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { RawOptions } from '@state-divergence/orchestrator';
import { at400, fanoutPair, firehoseRun, holdPair } from './perf-sections.js';
import { pingPong } from './stack.js';
import { round } from './table.js';
import { exitFlushed } from '@state-divergence/runtime';

const SECTIONS = ['at400', 'firehose', 'fanout', 'hold'] as const;
type Section = (typeof SECTIONS)[number];

const argv = yargs(hideBin(process.argv))
  .scriptName('perf')
  .options({
    only: {
      type: 'string',
      default: SECTIONS.join(','),
      describe: `Sections, comma-separated: ${SECTIONS.join(', ')}`,
    },
    runs: { type: 'number', default: 3 },
    quick: { type: 'boolean', default: false, describe: "The --quick bench's shorter phases" },
    raw: { type: 'string', default: '{}', describe: 'Extra demo options for at400 and firehose, as JSON (RawOptions)' },
    'max-load': { type: 'number', describe: 'Before each run, wait for the 1-minute load to fall below this' },
    'wait-minutes': {
      type: 'number',
      default: 30,
      describe: 'How long to wait for --max-load before measuring anyway (the line says so)',
    },
  })
  .strict()
  .parseSync();

const only = argv.only.split(',') as Section[];
const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0) {
  process.stderr.write(`perf: --only must name sections of ${SECTIONS.join(', ')}, got ${unknown.join(', ')}\n`);
  await exitFlushed(2, 'perf');
}
const raw = JSON.parse(argv.raw) as RawOptions;

const measure: Record<Section, () => Promise<Record<string, unknown>>> = {
  at400: () => at400(argv.quick, raw),
  firehose: async () => {
    const { achievedRatio, healthyDrops, healthyP99Ms, cpu } = await firehoseRun(argv.quick, raw);
    return {
      achievedRatio,
      healthyDrops,
      healthyP99Ms,
      cpuBroker: cpu?.broker,
      cpuConsumer: cpu?.consumer,
      cpuPublisher: cpu?.publisher,
    };
  },
  fanout: () => fanoutPair(argv.quick ? 1 : 3),
  hold: async () => {
    const ping = await pingPong(argv.quick ? 300 : 2000);
    const { group, hold } = await holdPair(argv.quick);
    const prefixed = (side: string, figures: Record<string, number>) =>
      Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${side}.${k}`, v]));
    return {
      pingP50: ping.p50,
      pingP99: ping.p99,
      ...prefixed('group', group),
      ...prefixed('hold', hold),
      groupP50VsPingP99: group.beforeP50 / ping.p99,
    };
  },
};

const summary: Record<string, Record<string, number>> = {};
for (const section of only) {
  const runs: Array<Record<string, unknown>> = [];
  for (let i = 0; i < argv.runs; i++) {
    await quietEnough();
    const load1 = round(loadavg()[0]!, 2);
    const figures = await measure[section]();
    runs.push(figures);
    process.stderr.write(`${JSON.stringify({ section, run: i + 1, load1, ...roundAll(figures) })}\n`);
  }
  const keys = Object.keys(runs[0]!).filter((k) => typeof runs[0]![k] === 'number');
  summary[section] = Object.fromEntries(keys.map((k) => [k, round(median(runs.map((r) => r[k] as number)))]));
}
process.stdout.write(
  `${JSON.stringify({ raw, runs: argv.runs, load1AtEnd: round(loadavg()[0]!, 2), median: summary }, null, 1)}\n`,
);
// On a pipe most of that is still in this process: exitFlushed waits for it.
await exitFlushed(0, 'perf');

/** Waits for --max-load, polling every 10 s, at most --wait-minutes. */
async function quietEnough(): Promise<void> {
  const max = argv['max-load'];
  if (max === undefined) return;
  const deadline = Date.now() + argv['wait-minutes'] * 60_000;
  while (loadavg()[0]! >= max && Date.now() < deadline) await sleep(10_000);
}

function roundAll(figures: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]));
}
