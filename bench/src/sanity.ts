import type { BenchResults } from './table.js';

/**
 * What every run of the benchmark must show, --quick included (`npm run bench --
 * --quick` is the smoke test of the benchmark itself): each named figure is a
 * finite positive number, and the figures that must order do. It asserts no
 * speed: speed is what the full benchmark reports, on a quiet machine, as ratios.
 * Returns one sentence per problem; none means the results are sane.
 */
export function insaneFigures(results: BenchResults): string[] {
  const problems: string[] = [];
  const positive = (name: string, value: unknown): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) problems.push(`${name} is ${String(value)}, not a positive number`);
  };
  positive('fanout.ratio3', results.fanout.ratio3);
  positive('latency.stallP99Ratio', results.latency.stallP99Ratio);
  positive('latency.p99VsPingPong', results.latency.p99VsPingPong);
  positive('overheadSeconds', results.overheadSeconds);
  positive('transport.datagramSpeedup', results.transport.datagramSpeedup);
  positive('firehose.achievedRatio', results.firehose.achievedRatio);
  positive('stack.quic1.median', results.stack.quic1.median);
  positive('stack.tcp64.median', results.stack.tcp64.median);
  if (results.firehose.runs[0]?.rate !== 20_000) problems.push(`the firehose ran at ${results.firehose.runs[0]?.rate}/s, not the seed's 20000/s`);
  if (results.machine.quick !== (results.demoWallRatio === null)) problems.push('demoWallRatio is measured by the full benchmark only (a minute of demo per run)');
  // TCP on loopback is orders of magnitude faster than this QUIC library: if not, something measured nothing.
  if (!(results.stack.tcp64.median > results.stack.quic64.median)) problems.push(`loopback TCP (${results.stack.tcp64.median}/s) was not faster than QUIC (${results.stack.quic64.median}/s)`);
  if (!Number.isInteger(results.scale.maxConsumersNoDrop)) problems.push(`scale.maxConsumersNoDrop is ${results.scale.maxConsumersNoDrop}, not an integer`);
  const [first] = results.scale.points;
  if (first?.consumers !== 10 || first.completed !== true) problems.push('the first scale point (10 consumers) did not complete');
  // A delta sends each missed key once: its bytes are those keys' bytes, plus LAG and SYNC_END.
  const ratio = results.resync.bytesRatio;
  if (!(ratio >= 1 && ratio < 1.1)) problems.push(`resync.bytesRatio is ${ratio}, not in [1, 1.1)`);
  if (results.durable === undefined) problems.push('the durable log section is missing');
  else {
    const { appendPerSec, commitP50Ms, commitP99Ms, backfillReadPerSec } = results.durable;
    for (const key of ['none', 'periodic', 'onCommit'] as const) {
      positive(`durable.appendPerSec.${key}`, appendPerSec[key].median);
      positive(`durable.commitP50Ms.${key}`, commitP50Ms[key].median);
      positive(`durable.commitP99Ms.${key}`, commitP99Ms[key].median);
      // Every run's p99 is of the same samples as its p50.
      if (commitP99Ms[key].runs.some((p99, i) => p99 < commitP50Ms[key].runs[i]!)) problems.push(`durable.commitP99Ms.${key} is below its p50 in a run`);
    }
    positive('durable.backfillReadPerSec', backfillReadPerSec.median);
  }
  return problems;
}
