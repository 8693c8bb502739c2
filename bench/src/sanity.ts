import type { BenchResults, DurableFigures } from './table.js';

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
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      problems.push(`${name} is ${String(value)}, not a positive number`);
  };
  positive('fanout.ratio3', results.fanout.ratio3);
  positive('latency.stallP99Ratio', results.latency.stallP99Ratio);
  positive('latency.p99VsPingPong', results.latency.p99VsPingPong);
  positive('overheadSeconds', results.overheadSeconds);
  positive('transport.datagramSpeedup', results.transport.datagramSpeedup);
  positive('firehose.achievedRatio', results.firehose.achievedRatio);
  positive('stack.quic1.median', results.stack.quic1.median);
  positive('stack.tcp64.median', results.stack.tcp64.median);
  if (results.firehose.runs[0]?.rate !== 20_000)
    problems.push(`the firehose ran at ${results.firehose.runs[0]?.rate}/s, not the seed's 20000/s`);
  if (results.machine.quick !== (results.demoWallRatio === null))
    problems.push('demoWallRatio is measured by the full benchmark only (a minute of demo per run)');
  // TCP on loopback is orders of magnitude faster than this QUIC library: if not, something measured nothing.
  if (!(results.stack.tcp64.median > results.stack.quic64.median))
    problems.push(
      `loopback TCP (${results.stack.tcp64.median}/s) was not faster than QUIC (${results.stack.quic64.median}/s)`,
    );
  if (!Number.isInteger(results.scale.maxConsumersNoDrop))
    problems.push(`scale.maxConsumersNoDrop is ${results.scale.maxConsumersNoDrop}, not an integer`);
  const [first] = results.scale.points;
  if (first?.consumers !== 10 || first.completed !== true)
    problems.push('the first scale point (10 consumers) did not complete');
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
      if (commitP99Ms[key].runs.some((p99, i) => p99 < commitP50Ms[key].runs[i]!))
        problems.push(`durable.commitP99Ms.${key} is below its p50 in a run`);
    }
    positive('durable.backfillReadPerSec', backfillReadPerSec.median);
    problems.push(...insaneEndToEnd(results.durable));
  }
  if (results.relay === undefined) problems.push('the fault relay section is missing');
  else {
    for (const key of ['default', 'fast'] as const) {
      positive(`relay.microsPerDatagram.${key}`, results.relay.microsPerDatagram[key].median);
      positive(`relay.datagramsPerSec.${key}`, results.relay.datagramsPerSec[key].median);
    }
    // A faster stream carries more datagrams through the relay, or the fast point measured nothing faster.
    if (!(results.relay.datagramsPerSec.fast.median > results.relay.datagramsPerSec.default.median))
      problems.push('the relay carried no more datagrams at the fast rate than at the default one');
  }
  if (results.cpu === undefined) problems.push('the CPU per event figures (cpu.microsPerEvent) are missing');
  else {
    for (const [role, at] of Object.entries(results.cpu.microsPerEvent)) {
      for (const [where, figure] of Object.entries(at))
        if (figure.runs.some((v) => !Number.isFinite(v) || v <= 0))
          problems.push(
            `cpu.microsPerEvent.${role}.${where} has a run that is not a positive number (${figure.runs.join(', ')})`,
          );
    }
    // A file stored before the group commit holds cpu.coalesce (the default hold beside none) instead.
    const { holdAB, coalesce } = results.cpu;
    if (holdAB === undefined && coalesce?.off == null)
      problems.push('cpu.holdAB (the default beside --coalesce-ms 25, each run back to back) is missing');
    for (const [side, figures] of Object.entries(holdAB ?? {}))
      if (typeof figures === 'object')
        for (const [key, figure] of Object.entries(figures))
          if (figure.runs.some((v) => !Number.isFinite(v) || v < 0))
            problems.push(`cpu.holdAB.${side}.${key} has a run that is not a number >= 0 (${figure.runs.join(', ')})`);
  }
  if (results.demoPhaseSeconds === undefined)
    problems.push('demoPhaseSeconds (what demoWallRatio divides by) is missing');
  return problems;
}

/** (8) end to end: present for lossy and each policy, p99 never under p50, and the durable column doing its job in
 * every run. */
function insaneEndToEnd(d: DurableFigures): string[] {
  const { publishP50Ms, publishP99Ms, publisherInStall, stalledBackfills, wrongAtEnd } = d;
  if (
    publishP50Ms === undefined ||
    publishP99Ms === undefined ||
    publisherInStall === undefined ||
    stalledBackfills === undefined ||
    wrongAtEnd === undefined
  ) {
    return [
      'the durable end-to-end figures (publishP50Ms, publishP99Ms, publisherInStall, stalledBackfills, ' +
        'wrongAtEnd) are missing',
    ];
  }
  const problems: string[] = [];
  for (const key of ['lossy', 'none', 'periodic', 'onCommit'] as const) {
    for (const [name, figure] of [
      ['publishP50Ms', publishP50Ms[key]],
      ['publishP99Ms', publishP99Ms[key]],
      ['publisherInStall', publisherInStall[key]],
    ] as const) {
      if (figure.runs.some((v) => !Number.isFinite(v) || v <= 0))
        problems.push(`durable.${name}.${key} has a run that is not a positive number (${figure.runs.join(', ')})`);
    }
    if (publishP99Ms[key].runs.some((p99, i) => p99 < publishP50Ms[key].runs[i]!))
      problems.push(`durable.publishP99Ms.${key} is below its p50 in a run`);
  }
  for (const key of ['none', 'periodic', 'onCommit'] as const) {
    // The stall outlasts the queue by design: a run whose frozen consumer never back-filled measured the wrong thing.
    if (stalledBackfills[key].runs.some((n) => n < 1))
      problems.push(
        `durable.stalledBackfills.${key} is ${stalledBackfills[key].runs.join(', ')}: the frozen consumer was ` +
          `never back-filled from the log`,
      );
    if (wrongAtEnd[key].runs.some((n) => n !== 0))
      problems.push(
        `durable.wrongAtEnd.${key} is ${wrongAtEnd[key].runs.join(', ')}: the durable column must end with ` +
          `every consumer correct`,
      );
  }
  return problems;
}
