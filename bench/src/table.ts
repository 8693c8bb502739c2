/**
 * The benchmark's markdown table, drawn from `bench/results.json` alone: `npm run bench`
 * prints it after measuring, and `npm run results` draws docs/RESULTS.md with it from
 * the stored file, so the two never disagree. Type-only imports: loading this module
 * starts nothing.
 */
import type { FirehosePoint } from './demo.js';
import type { ScalePoint } from './scale.js';
import { bestPeer, renderPeerTable, type PeerFigures } from './peer-figures.js';

export interface Figure {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

/** What results.json holds: every figure the table shows, and the machine it was measured on. */
export interface BenchResults {
  machine: {
    cpus: number;
    model: string;
    node: string;
    quick: boolean;
    runs: number;
    secondsPerThroughputSample: number;
  };
  stack: { quic1: Figure; quic64: Figure; tcp64: Figure; quic256: Figure; quic256Large: Figure };
  /** Per consumer count, the broker's lossless fan-out (and at 3 the raw QUIC one beside it). */
  fanout: { [consumers: number]: { broker: Figure; raw?: Figure }; ratio3: number; ratio3Runs: Figure };
  transport: {
    stream: { small: Figure; large: Figure; speedup: number };
    fanout3: {
      broker: Figure;
      raw: Figure;
      brokerLarge: Figure;
      rawLarge: Figure;
      ratioLarge: Figure;
      rawSpeedup: Figure;
      speedup: Figure;
    };
    datagramSpeedup: number;
  };
  firehose: {
    rate: number;
    achievedRatio: number;
    healthyDrops: number[];
    healthyP99Ms: Array<number | null>;
    runs: FirehosePoint[];
    ladder: FirehosePoint[];
    maxRateHeld: number | null;
  };
  latency: Record<'pingPong', Record<'p50' | 'p99', Figure>> &
    Record<'beforeP50' | 'beforeP99' | 'beforeP999' | 'stallP50' | 'stallP99' | 'stallP999', Figure> & {
      stallP99Ratio: number;
      p99VsPingPong: number;
    };
  overheadSeconds: number;
  overhead: Figure;
  demoWallRatio: number | null;
  demoWall: Figure | null;
  /** What demoWall divides by: the default demo's phases, s (every column's five; absent from results written before it
   * was kept, when it was 60). */
  demoPhaseSeconds?: number;
  /** `lone`: the same at --pool-size 1, a process per consumer (absent from results measured before pools existed). */
  scale: { points: ScalePoint[]; maxConsumersNoDrop: number; lone?: ScalePoint[] };
  /** `bytesRatio` is the median; `bytesRatioRuns` its figure (absent from results written before it was kept). */
  resync: Record<'vsFullSnapshot' | 'vsReplay', Figure> & { bytesRatio: number; bytesRatioRuns?: Figure };
  /** (8) The broker's durable log, per fsync policy (absent from results written before it was measured). */
  durable?: DurableFigures;
  /** (9) The fault relay's cost (absent from results written before it was measured). */
  relay?: RelayFigures;
  /** CPU per event of each role (absent from results written before it was measured). */
  cpu?: CpuFigures;
  /** (11) Our broker per mode beside every real system, one workload (absent from results written before it was
   * measured). */
  peers?: PeerFigures;
  wallSeconds: number;
}

/** (9) One consumer's link through the fault relay, at the default event rate and at a fast one (bench/src/relay.ts).
 * */
export interface RelayFigures {
  rates: { default: number; fast: number };
  /** The relay's CPU per datagram it carried (both ways), µs: the design's `relay.microsPerDatagram`. */
  microsPerDatagram: { default: Figure; fast: Figure };
  datagramsPerSec: { default: Figure; fast: Figure };
  /** The relay's CPU, % of one core. */
  cpuPercent: { default: Figure; fast: Figure };
  /** What the consumer behind it applied, events/s. */
  eventsPerSec: { default: Figure; fast: Figure };
}

/**
 * µs of CPU per event, per role, over each run's steady window (bench/src/cpu-window.ts): from the
 * end of the first phase to the end of the stall, from the processes' own process.cpuUsage(). The
 * broker's per event delivered to a subscriber, the consumers' per event applied (never-faulted
 * consumers only), the publisher's per change. At 400/s: section (3)'s runs; at the firehose: (7)'s.
 */
export interface CpuFigures {
  microsPerEvent: Record<'broker' | 'consumer' | 'publisher', { at400: Figure; firehose: Figure }>;
  /**
   * (a file stored before the group commit) --coalesce-ms side by side at 400/s: CPU per event of each
   * role and the healthy p99 before and during the stall, at the default hold and without one.
   */
  coalesce?: { defaultMs: number; atDefault: CoalescePoint; off: CoalescePoint | null };
  /**
   * The A/B of the hold: the default (the writer's group commit alone) and --coalesce-ms holdMs, each
   * run's pair back to back at 400/s (section (3)'s runs) and at the firehose ((7)'s).
   */
  holdAB?: { holdMs: number; group: HoldFigures; hold: HoldFigures };
}
export type CoalescePoint = Record<'broker' | 'consumer' | 'publisher' | 'beforeP99' | 'stallP99', Figure>;
/** One side of the hold's A/B (bench/src/perf-sections.ts HOLD_KEYS). */
export type HoldFigures = Record<
  | 'beforeP50'
  | 'beforeP99'
  | 'stallP99'
  | 'cpuBroker'
  | 'cpuConsumer'
  | 'cpuPublisher'
  | 'firehoseDrops'
  | 'firehoseCpuBroker',
  Figure
>;

type Policy = 'none' | 'periodic' | 'onCommit';
type ByPolicy = Record<Policy, Figure>;
export interface DurableFigures {
  /** Records/s appended with group commit (65-byte PUBLISH bodies). */
  appendPerSec: ByPolicy;
  /** append() to resolve at 400 appends/s: committed (none, periodic) or fdatasync'd (on-commit). */
  commitP50Ms: ByPolicy;
  commitP99Ms: ByPolicy;
  /** Records/s read back by read() in pages of 1,000. */
  backfillReadPerSec: Figure;
  /**
   * End to end, through real processes (absent from results written before it was measured): the
   * default stall at 400/s with 5 consumers and `phaseSeconds` phases, under durable per policy and
   * under lossy for reference. The healthy consumers' publish-to-apply during the stall, pooled, ms.
   */
  publishP50Ms?: ByPolicy & { lossy: Figure };
  publishP99Ms?: ByPolicy & { lossy: Figure };
  /** The publisher's achieved rate in the stall ÷ its target. */
  publisherInStall?: ByPolicy & { lossy: Figure };
  /** Times the frozen consumer was switched to reading the log (a full live queue), and keys wrong at the end (every
   * consumer). */
  stalledBackfills?: ByPolicy;
  wrongAtEnd?: ByPolicy;
  phaseSeconds?: number;
}

export const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const f = (x: Figure, digits = 0, unit = '') =>
  `${x.median.toFixed(digits)}${unit} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`;
const target = (ok: boolean) => (ok ? 'met' : '**not met**');

function firehoseLine(p: FirehosePoint): string {
  return (
    `publisher ${round(p.achievedRatio * 100, 1)} % of the rate; healthy drops ${p.healthyDrops}, p99 ` +
    `${p.healthyP99Ms} ms; the frozen consumer: ${p.stalledDropped} dropped, ${p.stalledWrong} of 12 keys wrong ` +
    `at the end`
  );
}

function durableLines(d: DurableFigures): string[] {
  const three = (by: ByPolicy, digits: number, unit = '') =>
    `${f(by.none, digits, unit)} / ${f(by.periodic, digits, unit)} / ${f(by.onCommit, digits, unit)}`;
  return [
    `| (8) durable log: appends/s with group commit, fsync none / periodic / on-commit | ` +
      `${three(d.appendPerSec, 0)} records/s | |`,
    `| (8) durable log: append→durable at 400/s p50, none / periodic / on-commit | ` +
      `${three(d.commitP50Ms, 2, ' ms')} | |`,
    `| (8) durable log: append→durable at 400/s p99, none / periodic / on-commit | ` +
      `${three(d.commitP99Ms, 2, ' ms')} | |`,
    `| (8) durable log: backfill read(), pages of 1,000 | ${f(d.backfillReadPerSec)} records/s | |`,
    ...(d.publishP99Ms === undefined ? [] : endToEndLines(d as Required<DurableFigures>)),
  ];
}

function endToEndLines(d: Required<DurableFigures>): string[] {
  const shape = `400/s, 5 consumers, ${d.phaseSeconds} s phases`;
  const four = (by: ByPolicy & { lossy: Figure }, digits: number, unit = '') =>
    `${f(by.lossy, digits, unit)} / ${f(by.none, digits, unit)} / ${f(by.periodic, digits, unit)} / ` +
    `${f(by.onCommit, digits, unit)}`;
  const percent = (x: Figure) => ({ ...x, median: x.median * 100, min: x.min * 100, max: x.max * 100 });
  const rates = {
    lossy: percent(d.publisherInStall.lossy),
    none: percent(d.publisherInStall.none),
    periodic: percent(d.publisherInStall.periodic),
    onCommit: percent(d.publisherInStall.onCommit),
  };
  const worstRate = Math.min(rates.none.min, rates.periodic.min, rates.onCommit.min);
  const wrong = Math.max(d.wrongAtEnd.none.max, d.wrongAtEnd.periodic.max, d.wrongAtEnd.onCommit.max);
  return [
    `| (8) end to end, the default stall (${shape}): healthy publish→apply in the stall p50, lossy / durable ` +
      `none / periodic / on-commit | ${four(d.publishP50Ms, 1, ' ms')} | |`,
    `| (8) end to end: the same p99, lossy / durable none / periodic / on-commit | ` +
      `${four(d.publishP99Ms, 1, ' ms')} | |`,
    `| (8) end to end: publisher rate in the stall, % of 400/s, lossy / durable none / periodic / on-commit | ` +
      `${four(rates, 1)} | durable >= 95 % in every run: ${target(worstRate >= 95)} |`,
    `| (8) end to end: the frozen consumer's back-fills from the log, none / periodic / on-commit; keys wrong ` +
      `at the end (every consumer, worst run) | ${f(d.stalledBackfills.none)} / ${f(d.stalledBackfills.periodic)}` +
      ` / ${f(d.stalledBackfills.onCommit)}; ${wrong} wrong | 0 wrong: ${target(wrong === 0)} |`,
  ];
}

function relayLines(r: RelayFigures): string[] {
  const at = (key: 'default' | 'fast') =>
    `| (9) fault relay, one consumer's link through it, lossy at ${r.rates[key]}/s: CPU per datagram carried ` +
    `(both ways) | ${f(r.microsPerDatagram[key], 1, ' µs')}; ${f(r.datagramsPerSec[key])} datagrams/s; ` +
    `${f(r.cpuPercent[key], 1, ' %')} of a core; the consumer applied ${f(r.eventsPerSec[key])} events/s | |`;
  return [at('default'), at('fast')];
}

function cpuLines(
  { microsPerEvent: { broker, consumer, publisher }, coalesce, holdAB }: CpuFigures,
  pingP99: Figure,
): string[] {
  const three = (at: 'at400' | 'firehose') => `${f(broker[at], 1)} / ${f(consumer[at], 1)} / ${f(publisher[at], 1)} µs`;
  return [
    `| (10) cpu.microsPerEvent at 400/s (5 consumers, as (3)), broker per delivery / consumer per event applied ` +
      `/ publisher per change | ${three('at400')} | |`,
    `| (10) cpu.microsPerEvent at the firehose (as (7)), broker / consumer / publisher | ${three('firehose')} | |`,
    ...(coalesce?.off ? coalesceLines(coalesce.defaultMs, coalesce.atDefault, coalesce.off) : []),
    ...(holdAB ? holdLines(holdAB, pingP99) : []),
  ];
}

/**
 * The hold's A/B, before (--coalesce-ms holdMs) → after (the group commit alone), and its targets: the
 * healthy p50 at 400/s within 2x raw ping-pong's p99, the broker's CPU per event at 400/s and the
 * firehose's healthy drops no worse than the hold's (medians, the same run).
 */
function holdLines({ holdMs, group, hold }: NonNullable<CpuFigures['holdAB']>, pingP99: Figure): string[] {
  const both = (key: keyof HoldFigures, digits: number, unit = '') =>
    `${f(hold[key], digits, unit)} → ${f(group[key], digits, unit)}`;
  const p50VsPing = group.beforeP50.median / pingP99.median;
  const noWorse = (key: keyof HoldFigures) => group[key].median <= hold[key].median;
  return [
    `| (10) --coalesce-ms ${holdMs} → group commit (the default), each run's pair back to back, at 400/s: healthy ` +
      `publish→apply p50 / p99 before the stall, p99 during it | ${both('beforeP50', 1, ' ms')} / ` +
      `${both('beforeP99', 1, ' ms')} / ${both('stallP99', 1, ' ms')} | |`,
    `| (10) the same: CPU per event at 400/s, broker / consumer / publisher | ${both('cpuBroker', 1, ' µs')} / ` +
      `${both('cpuConsumer', 1, ' µs')} / ${both('cpuPublisher', 1, ' µs')} | broker no worse: ` +
      `${target(noWorse('cpuBroker'))} |`,
    `| (10) the same at the firehose (as (7)): healthy drops / broker CPU per event | ${both('firehoseDrops', 0)} / ` +
      `${both('firehoseCpuBroker', 1, ' µs')} | drops no worse: ${target(noWorse('firehoseDrops'))} |`,
    `| (10) group commit: healthy p50 at 400/s before the stall ÷ raw ping-pong p99 | ${round(p50VsPing, 2)} | ` +
      `<= 2: ${target(p50VsPing <= 2)} |`,
  ];
}

function coalesceLines(ms: number, on: CoalescePoint, off: CoalescePoint): string[] {
  const both = (key: keyof CoalescePoint, digits: number, unit: string) =>
    `${f(off[key], digits, unit)} → ${f(on[key], digits, unit)}`;
  return [
    `| (10) --coalesce-ms 0 → ${ms} (the default) at 400/s: CPU per event, broker / consumer / publisher | ` +
      `${both('broker', 1, ' µs')} / ${both('consumer', 1, ' µs')} / ${both('publisher', 1, ' µs')} | |`,
    `| (10) --coalesce-ms 0 → ${ms}: healthy publish→apply p99 before / during the stall | ` +
      `${both('beforeP99', 1, ' ms')} / ${both('stallP99', 1, ' ms')} | |`,
  ];
}

/** Issue 21: hundreds of consumers on two cores (the seed asked for 64). */
const SCALE_TARGET = 256;

function scaleLine(p: ScalePoint): string {
  // Results measured before pools existed say nothing of them: every consumer was a process of its own.
  const hosting =
    p.poolSize === undefined
      ? ''
      : p.poolSize === 1
        ? ', a process each'
        : p.pools === 1
          ? `, ${p.poolSize} of them in one pool`
          : `, ${p.pools} pools of up to ${p.poolSize}`;
  const what = `(5) ${p.consumers} consumers${hosting}, resync, 400/s`;
  if (!p.completed) return `| ${what} | did not complete: ${p.error} | |`;
  const kinds = (field: 'cpuSeconds' | 'peakRssMiB') =>
    Object.entries(p.byKind)
      .map(([k, v]) => `${k} ${v[field]}`)
      .join(', ');
  const totals =
    p.peakRssMiB === undefined ? '' : `; all processes' peak RSS ${p.peakRssMiB} MiB; started in ${p.startSeconds} s`;
  return (
    `| ${what} | ${p.verdict}; healthy drops+lags ${p.healthyDropsOrLags}; publisher ` +
    `${round(p.publisherRatio * 100, 0)} % of its rate; healthy p99 ${p.healthyP99Ms} ms; CPU s ` +
    `${kinds('cpuSeconds')}; peak RSS MiB ${kinds('peakRssMiB')}${totals} | |`
  );
}

/** The table, its heading and the closing line on percentiles, as `npm run bench` prints them. */
export function renderBenchTable(results: BenchResults): string[] {
  const { machine, stack, fanout, transport, latency, overhead, demoWall, scale, resync, firehose } = results;
  const { fanout3 } = transport;
  const fanoutCounts = Object.keys(fanout)
    .filter((k) => /^\d+$/.test(k))
    .map(Number)
    .sort((a, b) => a - b);
  const { stallP99Ratio, p99VsPingPong } = latency;
  const { maxConsumersNoDrop } = scale;
  return [
    `## Benchmarks (${machine.cpus} cores, ${machine.model}, Node ${machine.node}; median of ${machine.runs}, ` +
      `min–max in brackets${machine.quick ? '; --quick' : ''})`,
    '',
    '| measurement | result | target |',
    '|---|---|---|',
    `| (1) raw QUIC, 1 stream, 64-byte frames, 1 per write | ${f(stack.quic1)} frames/s | |`,
    `| (1) raw QUIC, 64 frames per write | ${f(stack.quic64)} frames/s | |`,
    `| (1) loopback TCP, 64 frames per write | ${f(stack.tcp64)} frames/s | |`,
    `| (1) raw QUIC, 256 frames per write, 1,350-byte datagrams | ${f(stack.quic256)} frames/s | |`,
    `| (1) raw QUIC, 256 frames per write, 16,384-byte datagrams | ${f(stack.quic256Large)} frames/s (x` +
      `${transport.stream.speedup}) | |`,
    ...fanoutCounts.map(
      (n) => `| (2) broker fan-out, lossless, ${n} consumer(s) | ${f(fanout[n]!.broker)} events/s per consumer | |`,
    ),
    `| (2) raw QUIC fan-out to 3 processes, 256 per write | ${f(fanout3.raw)} frames/s per consumer | |`,
    `| (2) fanout.ratio3 = broker ÷ raw at 3, each run's pair | ${f(fanout.ratio3Runs, 2)} | >= 0.8 in every ` +
      `run: ${target(fanout.ratio3Runs.min >= 0.8)} |`,
    `| (2) the same at 16,384-byte datagrams: broker / raw / ratio | ${f(fanout3.brokerLarge)} / ` +
      `${f(fanout3.rawLarge)} / ${f(fanout3.ratioLarge, 2)} | |`,
    `| (2) transport.datagramSpeedup = broker fan-out to 3 at 16,384 ÷ at 1,350 (raw: ` +
      `${f(fanout3.rawSpeedup, 2)}) | ${f(fanout3.speedup, 2)} | |`,
    `| (3) raw QUIC ping-pong p50 / p99 | ${f(latency.pingPong.p50, 2, ' ms')} / ` +
      `${f(latency.pingPong.p99, 2, ' ms')} | |`,
    `| (3) healthy publish→apply before the stall p50 / p99 / p999 | ${f(latency.beforeP50, 1, ' ms')} / ` +
      `${f(latency.beforeP99, 1, ' ms')} / ${f(latency.beforeP999, 1, ' ms')} | |`,
    `| (3) healthy publish→apply during the stall p50 / p99 / p999 | ${f(latency.stallP50, 1, ' ms')} / ` +
      `${f(latency.stallP99, 1, ' ms')} / ${f(latency.stallP999, 1, ' ms')} | |`,
    `| (3) latency.stallP99Ratio = during ÷ before | ${round(stallP99Ratio, 2)} | <= 1.5: ` +
      `${target(stallP99Ratio <= 1.5)} |`,
    `| (3) latency.p99VsPingPong = during ÷ ping-pong p99 | ${round(p99VsPingPong, 2)} | <= 3: ` +
      `${target(p99VsPingPong <= 3)} |`,
    `| (4) overheadSeconds (one mode at --duration 1, minus 5 s) | ${f(overhead, 2, ' s')} | < 1.0 s: ` +
      `${target(overhead.median < 1)} |`,
    demoWall === null
      ? '| (4) demoWallRatio | not measured with --quick | |'
      : `| (4) demoWallRatio = default demo wall time ÷ its ${results.demoPhaseSeconds ?? 60} s of phases | ` +
        `${f(demoWall, 3)} | <= 1.05: ${target(demoWall.median <= 1.05)} |`,
    ...scale.points.map(scaleLine),
    ...(scale.lone ?? []).map(scaleLine),
    `| (5) scale.maxConsumersNoDrop (no healthy drop or lag, publisher >= 95 % of its rate) | ` +
      `${maxConsumersNoDrop} | ${SCALE_TARGET}: ${target(maxConsumersNoDrop >= SCALE_TARGET)} |`,
    `| (6) resync.bytesRatio = resync bytes ÷ bytes of the keys missed | ` +
      `${resync.bytesRatioRuns ? f(resync.bytesRatioRuns, 3) : resync.bytesRatio.toFixed(3)} | |`,
    `| (6) resync bytes ÷ a full snapshot / ÷ replaying every missed event | ${f(resync.vsFullSnapshot, 2)} / ` +
      `${f(resync.vsReplay, 2)} | |`,
    ...firehose.runs.map(
      (p) => `| (7) firehose: 12 keys, ${p.rate}/s, 3 consumers, 16,384-byte datagrams | ${firehoseLine(p)} | |`,
    ),
    `| (7) firehose.achievedRatio (median) | ${firehose.achievedRatio} | >= 0.95 with no healthy drop: ` +
      `${target(firehose.achievedRatio >= 0.95 && firehose.runs.every((p) => p.healthyDrops === 0))} |`,
    ...firehose.ladder.map((p) => `| (7) firehose ladder: ${p.rate}/s | ${firehoseLine(p)} | |`),
    `| (7) firehose.maxRateHeld (no healthy drop, >= 95 % of the rate) | ` +
      `${
        machine.quick
          ? 'not measured with --quick'
          : firehose.maxRateHeld === null
            ? `none: even ${firehose.ladder[0]!.rate}/s did not hold`
            : `${firehose.maxRateHeld}/s`
      }` +
      ` | |`,
    ...(results.cpu === undefined ? [] : cpuLines(results.cpu, latency.pingPong.p99)),
    ...(results.durable === undefined ? [] : durableLines(results.durable)),
    ...(results.relay === undefined ? [] : relayLines(results.relay)),
    ...capacityLines(results),
    '',
    `Wall time ${results.wallSeconds} s. Percentiles: simple-statistics quantileSorted over every sample in the ` +
      `window; the first second of publishing (or half the phase) is excluded as warm-up, and the first 10% of ` +
      `ping-pongs${results.durable === undefined ? '' : " and of the durable log's appends at 400/s"}.`,
    ...(results.peers === undefined ? [] : ['', ...renderPeerTable(results.peers)]),
  ];
}

/**
 * Our capacity figures as fractions of a limit measured in the same run (raw QUIC's fan-out, the
 * fastest real system), so that a slower machine, which lowers both, reads apart from a regression,
 * which lowers ours alone.
 */
export function capacityLines(results: BenchResults): string[] {
  const raw = results.transport.fanout3.raw.median;
  const rawLarge = results.transport.fanout3.rawLarge.median;
  const lines = [
    `| (12) capacity ÷ an in-run limit: broker fan-out to 3 ÷ raw QUIC fan-out to 3 | ` +
      `${round(results.fanout[3]!.broker.median / raw, 2)} | |`,
  ];
  if (results.firehose.maxRateHeld !== null)
    lines.push(
      `| (12) capacity ÷ an in-run limit: firehose.maxRateHeld ÷ raw QUIC fan-out to 3 at 16,384-byte datagrams | ` +
        `${round(results.firehose.maxRateHeld / rawLarge, 3)} (${results.firehose.maxRateHeld} ÷ ${rawLarge}/s) | |`,
    );
  const peers = results.peers;
  const fastest = peers && bestPeer(peers.rows, 'fanout');
  if (peers && fastest) {
    for (const row of peers.rows.filter((r) => r.kind === 'broker' && r.fanoutNoDrop !== null))
      lines.push(
        `| (12) capacity ÷ an in-run limit: ${row.name} fan-out to 3 with no drop ÷ the fastest real system's ` +
          `(${fastest.name}, ${fastest.value}/s) | ${round(row.fanoutNoDrop! / fastest.value, 2)} | |`,
      );
  }
  return lines;
}
