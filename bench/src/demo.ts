import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import {
  buildPlan,
  DEFAULTS,
  faultedConsumers,
  normalizeOptions,
  runMode,
  silentProgress,
  startCluster,
  type ChildHandle,
  type ModeResult,
  type RawOptions,
} from '@state-divergence/orchestrator';
import { eventFrameBytes, type LogSettings, type Mode } from '@state-divergence/protocol';
import { createLogger } from '@state-divergence/runtime';
import { CpuWindow, type CpuPerEvent } from './cpu-window.js';

const ORCHESTRATOR = fileURLToPath(new URL('../../packages/orchestrator/bin/orchestrator.js', import.meta.url));
const quiet = (mode: Mode | null): LogSettings => ({ level: 'warn', file: null, mode });
/** The benchmark process's one logger. */
const logger = createLogger('bench', quiet(null));

/** One mode of the real demo, in-process through the orchestrator's own runMode; `cpu` measures its steady window. */
export async function demoRun(mode: Mode, raw: RawOptions, cpu?: CpuWindow): Promise<ModeResult> {
  const options = normalizeOptions({ ...raw, logLevel: 'warn' }, { stderrIsTTY: false });
  return runMode(mode, options, {
    signal: new AbortController().signal,
    observer: cpu?.observer ?? silentProgress,
    registry: cpu?.registry ?? new Set(),
    logger,
  });
}

/** A demo run and each role's CPU per event over its steady window (cpu-window.ts): null if it had none. */
export async function measuredRun(
  mode: Mode,
  raw: RawOptions,
): Promise<{ result: ModeResult; cpu: CpuPerEvent | null }> {
  // Who is faulted is the plan's to say (every fault kind, network ones included), as in the run itself.
  const faulted = new Set(faultedConsumers(buildPlan(normalizeOptions(raw, { stderrIsTTY: false }))));
  const window = new CpuWindow(faulted);
  const result = await demoRun(mode, raw, window);
  return { result, cpu: await window.perEvent() };
}

/**
 * (2) The broker's lossless fan-out with no stall: a publisher asked for far
 * more than the stack can carry, N consumers, events/s each consumer applied
 * (the slowest), after a warm-up. The cluster is the demo's own (startCluster).
 */
export async function brokerFanout(
  consumers: number,
  seconds: number,
  datagramSize = DEFAULTS.datagramSize,
): Promise<number> {
  const children: ChildHandle[] = [];
  try {
    const cluster = await startCluster(
      {
        // The run's defaults (2000 keys, a 512-event queue, 64-byte payloads, seed 1), but these.
        ...DEFAULTS,
        mode: 'lossless',
        datagramSize,
        overflow: 'drop-new',
        rate: 100_000,
        deleteRatio: 0,
        idleTimeoutMs: 60_000,
        log: quiet('lossless'),
        consumers: Array.from({ length: consumers }, (_, i) => `consumer-${i + 1}`),
      },
      { logger, track: (child) => children.push(child), aborted: new Promise<never>(() => {}) },
    );
    // Far more than the stack can carry: the publisher goes as fast as the broker lets it.
    cluster.publisher.send({ type: 'start', durationMs: (seconds + 3) * 1000 });
    await sleep(1000);
    const applied = async () => Promise.all(cluster.consumers.map(async (c) => (await c.status(5000)).applied));
    const before = await applied();
    await sleep(seconds * 1000);
    const after = await applied();
    return Math.min(...after.map((n, i) => (n - before[i]!) / seconds));
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

/** (4) Wall time of one mode at --duration 1 through the CLI, minus the 5 s of phases. */
export async function overheadSeconds(): Promise<number> {
  const started = performance.now();
  const result = await execa(
    'node',
    [ORCHESTRATOR, '--mode', 'lossy', '--duration', '1', '--json', '--log-level', 'silent'],
    { reject: false },
  );
  if (result.exitCode !== 0) throw new Error(`the demo failed (${result.exitCode}): ${result.stderr}`);
  return (performance.now() - started) / 1000 - 5;
}

/** (7) The seed's firehose: lossy, 12 keys, 3 consumers, 16,384-byte datagrams, publishing on after the stall. */
export interface FirehosePoint {
  rate: number;
  /** Achieved ÷ requested publish rate. */
  achievedRatio: number;
  /** Drops and lag signals for the consumers that were never frozen: 0 is "keeping up". */
  healthyDrops: number;
  /** The worst healthy consumer's publish-to-apply p99 over the run, ms. */
  healthyP99Ms: number | null;
  /** The frozen consumer: events the broker dropped for it, and keys it ended wrong about (the seed: 0, despite the
   * drops). */
  stalledDropped: number;
  stalledWrong: number;
  verdict: string;
  /** CPU per event of each role from the end of the first phase to the end of the stall (cpu-window.ts); null: not
   * measured. */
  cpu: CpuPerEvent | null;
}

export async function firehose(rate: number, duration: number, more: RawOptions = {}): Promise<FirehosePoint> {
  const { result, cpu } = await measuredRun('lossy', {
    keys: 12,
    rate,
    consumers: 3,
    duration,
    publishUntil: 4 * duration,
    datagramSize: 16_384,
    ...more,
  });
  const subscriber = (name: string) => result.broker?.subscribers[name];
  const healthy = result.consumers.filter((c) => !c.faulted);
  const stalled = result.consumers.find((c) => c.faulted)!;
  return {
    rate,
    achievedRatio: result.publisher.achievedRate / rate,
    healthyDrops: healthy.reduce(
      (sum, c) => sum + (subscriber(c.name)?.dropped ?? 0) + (subscriber(c.name)?.lags ?? 0),
      0,
    ),
    healthyP99Ms: worstHealthyP99(result),
    stalledDropped: subscriber(stalled.name)?.dropped ?? 0,
    stalledWrong: stalled.wrongKeys.length,
    verdict: result.check.verdict,
    cpu,
  };
}

/** The slowest healthy consumer's publish-to-apply p99 over the whole run, ms. */
export function worstHealthyP99(result: ModeResult): number | null {
  const p99s = result.consumers
    .filter((c) => !c.faulted)
    .map((c) => c.latency?.all?.p99)
    .filter((p): p is number => p !== undefined);
  return p99s.length > 0 ? Math.max(...p99s) : null;
}

/**
 * The default demo's phases, s: every mode the default `--mode` runs (all: one column per row of
 * the mode table), five phases of the default duration each (the default stall's plan).
 */
export const DEFAULT_DEMO_SECONDS = ((defaults) => defaults.modes.length * 5 * defaults.duration)(
  normalizeOptions({}, { stderrIsTTY: false }),
);

/** (4) Wall time of the default demo (npm run demo, every column) over its phases. */
export async function demoWallRatio(): Promise<number> {
  const started = performance.now();
  const result = await execa('node', [ORCHESTRATOR, '--json', '--log-level', 'silent'], { reject: false });
  if (result.exitCode !== 0) throw new Error(`the demo failed (${result.exitCode}): ${result.stderr}`);
  return (performance.now() - started) / 1000 / DEFAULT_DEMO_SECONDS;
}

/** What one stalled run costs the consumers that were never frozen, and what it did for the frozen one. */
export interface StallRunPoint {
  /** Healthy consumers' publish-to-apply during the stall, pooled, ms. */
  p50: number;
  p99: number;
  /** Achieved publish rate between SIGSTOP and SIGCONT ÷ the requested rate. */
  rateInStall: number;
  /** Times the frozen consumer's full live queue switched it to reading the log (0 outside durable). */
  stalledBackfills: number;
  /** Keys every consumer held wrong at the end, summed. */
  wrongAtEnd: number;
}

/**
 * (8) The demo's default stall through real processes, in one mode (and under durable one fsync
 * policy): a healthy consumer applies an event only once the broker's append of it resolved, so
 * the policy's cost shows in its publish-to-apply latency, while the frozen consumer is back-filled
 * from the log.
 */
export async function stallRun(mode: Mode, raw: RawOptions): Promise<StallRunPoint> {
  const result = await demoRun(mode, raw);
  const during = result.healthyInStall;
  if (during === null) throw new Error(`${mode}: no healthy publish-to-apply samples during the stall`);
  const stalled = result.consumers.find((c) => c.faulted)!;
  return {
    p50: during.p50,
    p99: during.p99,
    rateInStall: result.publisher.rateInStall / (raw.rate ?? DEFAULTS.rate),
    stalledBackfills: result.broker?.subscribers[stalled.name]?.backfills ?? 0,
    wrongAtEnd: result.cost.wrongAtEnd,
  };
}

/**
 * (6) Bytes sent to bring the stalled consumer back, over the bytes of the keys
 * it actually missed (each changed key's STATE frame once), plus what a full
 * snapshot and a replay of every missed event would have cost.
 */
export async function resyncEfficiency(
  duration: number,
): Promise<{ bytesRatio: number; vsFullSnapshot: number; vsReplay: number; keysMissed: number }> {
  const result = await demoRun('resync', { duration });
  const stalled = result.consumers.find((c) => c.faulted)!;
  const queue = result.broker!.subscribers[stalled.name]!;
  const deltas = stalled.recovery!.syncs.filter((s) => s.kind === 'delta');
  const missedKeyBytes = deltas.reduce((sum, s) => sum + s.bytes, 0);
  const keysMissed = deltas.reduce((sum, s) => sum + s.keys, 0);
  const eventBytes = eventFrameBytes(64);
  const eventsMissed = result.published - (stalled.applied ?? 0);
  return {
    bytesRatio: queue.resyncBytes / missedKeyBytes,
    vsFullSnapshot: queue.resyncBytes / queue.fullSnapshotBytes,
    vsReplay: queue.resyncBytes / (eventsMissed * eventBytes),
    keysMissed,
  };
}
