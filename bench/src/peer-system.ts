/**
 * One real system (packages/systems) under the peer section's workload: its server started here,
 * the seed's workload written through its own writer, 3 probe consumers of its naive idiom. The
 * naive idiom is what a quickstart writes (subscribe or watch, apply what arrives); with no fault
 * it carries every change, so it measures the server's fan-out, not an idiom's recovery. The
 * careful idiom relists after a fault, which costs the stall, not the healthy path measured here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  knobValues,
  runPrefix,
  startProbe,
  startServer,
  type Probe,
  type RunningServer,
  type TargetSystem,
  type Writer,
} from '@state-divergence/systems';
import { DEFAULTS, workload } from '@state-divergence/orchestrator';
import { cpuMicrosOf, peakRssKbOf } from './proc-stat.js';
import { latencyOf, type RampStep, type LatencyPoint } from './peer-figures.js';

/** Writes awaiting their acknowledgement at once, at most: the orchestrator's publisher's bound (systems-run). */
const MAX_IN_FLIGHT = 256;
/** How long the probes get to apply every acknowledged write after the last. */
const DRAIN_MS = 3_000;

const now = () => performance.timeOrigin + performance.now();

/** When each acknowledged write was issued, by its seq; each key's latest acknowledged seq; how many were issued. */
interface Written {
  issuedAt: Map<number, number>;
  latest: Map<string, number>;
  issued: number;
}

/** The seed's workload at `rate` for `ms` through `writer`, at most MAX_IN_FLIGHT unacknowledged. */
async function publishFor(writer: Writer, rate: number, ms: number): Promise<Written> {
  const next = workload({
    keys: DEFAULTS.keys,
    seed: DEFAULTS.seed,
    payload: DEFAULTS.payload,
    deleteRatio: DEFAULTS.deleteRatio,
  });
  const issuedAt = new Map<number, number>();
  const latest = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const started = now();
  let issued = 0;
  let failure: unknown;
  for (let elapsed = 0; elapsed < ms && failure === undefined; elapsed = now() - started) {
    const due = Math.floor((rate * elapsed) / 1000);
    while (issued < due && inFlight.size < MAX_IN_FLIGHT) {
      issued += 1;
      const { key, value } = next();
      const at = now();
      const one: Promise<void> = writer.write(key, value).then(
        (seq) => {
          if (seq === null) return;
          issuedAt.set(seq, at);
          if (seq > (latest.get(key) ?? 0)) latest.set(key, seq);
        },
        (error: unknown) => void (failure ??= error),
      );
      inFlight.add(one);
      void one.finally(() => inFlight.delete(one));
    }
    await sleep(inFlight.size >= MAX_IN_FLIGHT ? 1 : 2);
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  return { issuedAt, latest, issued };
}

/** The probes' reports once each has applied every acknowledged seq, or at the drain's deadline. */
async function drained(probes: Probe[], written: Written) {
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    const reports = await Promise.all(probes.map((p) => p.report()));
    const complete = reports.every((r) => missed(r.appliedSeqs, written) === 0);
    if (complete || Date.now() >= deadline) return reports;
    await sleep(100);
  }
}

/**
 * Keys whose latest acknowledged write a consumer never applied: changes it missed for good. A
 * superseded write it skipped is not one: a KV bucket keeps one revision a key (its history), so
 * its watcher, a little behind, finds a rewritten key's older revision gone, and gets the newer.
 */
const missed = (applied: readonly number[], written: Written) => {
  const seen = new Set(applied);
  let count = 0;
  for (const seq of written.latest.values()) if (!seen.has(seq)) count += 1;
  return count;
};

/** Acknowledged writes a consumer never applied, superseded ones included. */
const skipped = (applied: readonly number[], written: Written) => {
  const seen = new Set(applied);
  let count = 0;
  for (const seq of written.issuedAt.keys()) if (!seen.has(seq)) count += 1;
  return count;
};

/** A server of `system`, the run's namespace and writer and `consumers` naive probes; `use` runs with them. */
async function withRun<T>(
  system: TargetSystem,
  server: RunningServer,
  consumers: number,
  use: (writer: Writer, probes: Probe[]) => Promise<T>,
): Promise<T> {
  const knobs = knobValues(system, {});
  const prefix = runPrefix();
  const probes: Probe[] = [];
  let writer: Writer | undefined;
  try {
    await system.prepare?.(server.endpoint, prefix, knobs);
    writer = await system.writer(server.endpoint, prefix, knobs);
    for (let i = 0; i < consumers; i++) probes.push(await startProbe(system.name, 'naive', server.endpoint, prefix));
    return await use(writer, probes);
  } finally {
    await Promise.all(probes.map((p) => p.stop()));
    await writer?.close().catch(() => {});
    await system.cleanup(server.endpoint, prefix).catch(() => {});
  }
}

/** One step of the ramp: `rate` for `seconds` to 3 consumers; held when every consumer applied every write. */
export async function systemRampStep(
  system: TargetSystem,
  server: RunningServer,
  rate: number,
  seconds: number,
): Promise<RampStep> {
  return withRun(system, server, 3, async (writer, probes) => {
    const written = await publishFor(writer, rate, seconds * 1000);
    const reports = await drained(probes, written);
    const dropped = reports.reduce((sum, r) => sum + missed(r.appliedSeqs, written), 0);
    const superseded = reports.reduce((sum, r) => sum + skipped(r.appliedSeqs, written), 0) - dropped;
    return { rate, achievedRatio: written.issued / (rate * seconds), dropped, superseded };
  });
}

/**
 * `rate` to 3 consumers, the demo's default stall (bench (3)'s shape): the last consumer frozen
 * (SIGSTOP) over [phase, 3 × phase) while publishing goes on to its end. The healthy consumers'
 * publish→apply by when they applied, before the stall (after the first second's warm-up, as the
 * demo's outcome.ts) and in it; the server's CPU over the stall per change it delivered there (a
 * change applied by a healthy consumer in the window; the frozen one's counted when it catches up).
 */
export async function systemLatency(
  system: TargetSystem,
  server: RunningServer,
  rate: number,
  phase: number,
): Promise<LatencyPoint> {
  return withRun(system, server, 3, async (writer, probes) => {
    const pid = server.pid!;
    const started = now();
    const at = (s: number) => started + s * 1000;
    const cpu: Array<number | undefined> = [];
    const frozen = probes.at(-1)!;
    const stall = (async () => {
      await sleep(phase * 1000);
      cpu.push(cpuMicrosOf(pid));
      frozen.freeze();
      await sleep(2 * phase * 1000);
      cpu.push(cpuMicrosOf(pid));
      frozen.thaw();
    })();
    const written = await publishFor(writer, rate, 3 * phase * 1000);
    await stall;
    // outcome.ts's warm-up: the first second, or half the phase when that is shorter.
    const warmUp = Math.min(1, phase / 2);
    const reports = await drained(probes, written);
    const [cpuFrom, cpuTo] = cpu;
    /** Each consumer's (issued, applied) of every acknowledged change it applied, applied in [from, to). */
    const applied = (r: (typeof reports)[number], from: number, to: number) =>
      r.appliedSeqs.flatMap((seq, i) => {
        const issued = written.issuedAt.get(seq);
        const when = r.appliedAtMs![i]!;
        return issued !== undefined && when >= from && when < to ? [when - issued] : [];
      });
    const healthy = reports.slice(0, -1);
    const inStall = healthy.map((r) => applied(r, at(phase), at(3 * phase)));
    // The frozen consumer's share of the window: what was published in it, however late it arrived.
    const frozenShare = reports
      .at(-1)!
      .appliedSeqs.filter(
        (seq) => (written.issuedAt.get(seq) ?? 0) >= at(phase) && written.issuedAt.get(seq)! < at(3 * phase),
      ).length;
    const delivered = inStall.reduce((sum, l) => sum + l.length, 0) + frozenShare;
    return {
      before: latencyOf(healthy.flatMap((r) => applied(r, at(warmUp), at(phase)))),
      during: latencyOf(inStall.flat()),
      cpuMicrosPerDelivery:
        cpuFrom === undefined || cpuTo === undefined || delivered === 0 ? null : (cpuTo - cpuFrom) / delivered,
      peakRssMiB: (peakRssKbOf(pid) ?? Number.NaN) / 1024,
    };
  });
}
