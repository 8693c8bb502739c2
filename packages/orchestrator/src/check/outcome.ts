import type { BrokerReport, ConsumerReport, DigestVerdict, Mode, ProcessResources, PublisherReport, RogueReport, SyncRecord } from '@state-divergence/protocol';
import type { DrainResult } from '../model/drain.js';
import type { RunEvent } from '../model/events.js';
import type { Fault } from '../model/faults.js';
import { checkSafely, type CheckInput, type CheckResult } from './checker.js';
import { overlaps, wrongByDecile, type Overlap } from './damage.js';
import { summarizeLatency, type LatencySummary } from './latency.js';

const round1 = (n: number): number => Math.round(n * 10) / 10;

export interface ConsumerLatency {
  all: LatencySummary | null;
  /** Events applied between SIGSTOP and SIGCONT of the stalled consumers. */
  inStall: LatencySummary | null;
}

export interface PublisherOutcome {
  published: number;
  /** Achieved rate over the publishing phases, changes/s. */
  achievedRate: number;
  /** Achieved rate between SIGSTOP and SIGCONT: what lossless costs the publisher. */
  rateInStall: number;
  blockedMs: number;
}

export interface Recovery {
  lags: number;
  resumes: number;
  syncs: SyncRecord[];
  /** Deltas received, and the keys they re-sent in all. */
  deltas: number;
  keysResent: number;
  /** From SIGCONT to the end of the last delta (resync): how long it took to be right again. */
  convergedAfterThawMs: number | null;
}

/** What each column cost, in the same run: the seed's "neither column is free". */
export interface Cost {
  publisherRate: number;
  publisherRateInStall: number;
  healthyP99InStallMs: number | null;
  /** Keys the stalled consumers hold wrong at the end, summed: what the column failed to protect. */
  stalledWrongAtEnd: number;
  /** Bytes of LAG + STATE + SYNC_END sent to bring stalled or gapped consumers back. */
  resyncBytes: number;
  /** What full snapshots would have cost at those same moments. */
  fullSnapshotBytes: number;
  convergedAfterThawMs: number | null;
}

export type ProcessCost = { name: string; role: string } & ProcessResources;

export interface ModeResult {
  mode: Mode;
  published: number;
  publisher: PublisherOutcome;
  check: CheckResult;
  broker: BrokerReport | null;
  digests: Record<string, DigestVerdict | null>;
  latency: Record<string, ConsumerLatency>;
  /** All healthy consumers' samples during the stall, pooled. */
  healthyInStall: LatencySummary | null;
  /** The same before the stall, after a warm-up (the first second, or half the phase). */
  healthyBeforeStall: LatencySummary | null;
  /** CPU and peak memory of every process of the run, the orchestrator included. */
  processes: ProcessCost[];
  recovery: Record<string, Recovery>;
  /** Each consumer's faults, as scheduled (none for a healthy one). */
  faults: Record<string, Fault[]>;
  cost: Cost;
  /** Keys wrong at each sample of the live monitor, per consumer (a frozen one repeats its last figure). */
  wrongOverTime: { intervalMs: number; series: Record<string, number[]>; publisherRate: number[] };
  /** Where the damage is: wrong fraction per hotness decile per consumer, and overlaps between stalled consumers. */
  damage: { byDecile: Record<string, number[]>; stalledOverlap: Overlap[] };
  drain: DrainResult;
  /** What a hostile client tried during the run, and how the broker answered (--rogue-frames). */
  rogue: RogueReport | null;
  events: RunEvent[];
  wallSeconds: number;
}

export interface GatheredRun {
  mode: Mode;
  consumers: Array<{ name: string; stalled: boolean; faults: Fault[]; report: ConsumerReport | null; digest: DigestVerdict | null; died: string | null }>;
  publisher: PublisherReport;
  broker: BrokerReport | null;
  /** Wall-clock ms of SIGSTOP and SIGCONT. */
  stallWindow: { from: number; to: number };
  publishedInStall: number;
  drain: DrainResult;
  rogue: RogueReport | null;
  wrongOverTime: ModeResult['wrongOverTime'];
  processes: ProcessCost[];
  events: RunEvent[];
  wallSeconds: number;
}

/** Concatenates sample sets without spreading (a spread of ~100k numbers overflows the stack). */
function poolSamples(sets: ConsumerReport['latency'][]): ConsumerReport['latency'] {
  const total = sets.reduce((n, s) => n + s.latencyMs.length, 0);
  const pooled = { appliedAt: new Float64Array(total), latencyMs: new Float64Array(total) };
  let at = 0;
  for (const set of sets) {
    pooled.appliedAt.set(set.appliedAt, at);
    pooled.latencyMs.set(set.latencyMs, at);
    at += set.latencyMs.length;
  }
  return pooled;
}

function recoveryOf(report: ConsumerReport, stalled: boolean, thawedAt: number): Recovery {
  const deltas = report.syncs.filter((s) => s.kind === 'delta');
  const lastDelta = deltas.filter((s) => s.at >= thawedAt).at(-1);
  return {
    lags: report.lags,
    resumes: report.resumes,
    syncs: report.syncs,
    deltas: deltas.length,
    keysResent: deltas.reduce((sum, s) => sum + s.keys, 0),
    convergedAfterThawMs: stalled && lastDelta ? round1(lastDelta.at - thawedAt) : null,
  };
}

/** Per consumer: latency overall and in the stall, how it recovered; and the healthy ones' samples pooled. */
function perConsumer(run: GatheredRun) {
  const latency: Record<string, ConsumerLatency> = {};
  const recovery: Record<string, Recovery> = {};
  const healthy: ConsumerReport['latency'][] = [];
  for (const c of run.consumers) {
    if (c.report === null) continue;
    latency[c.name] = { all: summarizeLatency(c.report.latency), inStall: summarizeLatency(c.report.latency, run.stallWindow) };
    recovery[c.name] = recoveryOf(c.report, c.stalled, run.stallWindow.to);
    if (!c.stalled) healthy.push(c.report.latency);
  }
  return { latency, recovery, healthy: poolSamples(healthy) };
}

function publisherOutcome(run: GatheredRun): PublisherOutcome {
  const { publisher, stallWindow } = run;
  return {
    published: publisher.published,
    achievedRate: round1(publisher.published / Math.max(0.001, (publisher.stoppedAt - publisher.startedAt) / 1000)),
    rateInStall: round1(run.publishedInStall / ((stallWindow.to - stallWindow.from) / 1000)),
    blockedMs: Math.round(publisher.blockedMs),
  };
}

function checkInput(run: GatheredRun): CheckInput {
  const { publisher, broker } = run;
  return {
    authority: publisher.authority,
    history: publisher.history,
    lastWriteOffsets: broker?.lastWriteOffsets ?? [],
    consumers: run.consumers.map((c) => ({ ...c, droppedRanges: broker?.subscribers[c.name]?.droppedRanges ?? [], undrained: run.drain.behind[c.name] ?? null })),
  };
}

/**
 * Turns what was gathered into the run's result: the checker's verdicts plus
 * measurements. Every figure a report shows is computed here, once, so the
 * renderers only draw. `checker` is replaceable so a test can make it throw.
 */
export function assembleOutcome(run: GatheredRun, checker?: Parameters<typeof checkSafely>[1]): ModeResult {
  const { publisher, broker, stallWindow } = run;
  const result = checkSafely(checkInput(run), checker);
  const { latency, recovery, healthy } = perConsumer(run);
  const healthyInStall = summarizeLatency(healthy, stallWindow);
  const warmUpMs = Math.min(1000, (stallWindow.from - publisher.startedAt) / 2);
  const healthyBeforeStall = summarizeLatency(healthy, { from: publisher.startedAt + warmUpMs, to: stallWindow.from });
  const rates = publisherOutcome(run);
  // The run's consumers only: a rogue client's subscriptions (--rogue-frames) are not part of any column's cost.
  const subscribers = run.consumers.flatMap((c) => broker?.subscribers[c.name] ?? []);
  const converged = Object.values(recovery).map((r) => r.convergedAfterThawMs).filter((ms): ms is number => ms !== null);
  const stalledChecks = result.consumers.filter((c) => c.stalled);
  return {
    mode: run.mode,
    published: publisher.published,
    publisher: rates,
    check: result,
    broker,
    digests: Object.fromEntries(run.consumers.map((c) => [c.name, c.digest])),
    latency,
    healthyInStall,
    healthyBeforeStall,
    processes: run.processes,
    recovery,
    faults: Object.fromEntries(run.consumers.map((c) => [c.name, c.faults])),
    cost: {
      publisherRate: rates.achievedRate,
      publisherRateInStall: rates.rateInStall,
      healthyP99InStallMs: healthyInStall?.p99 ?? null,
      stalledWrongAtEnd: stalledChecks.reduce((sum, c) => sum + c.wrongKeys.length, 0),
      resyncBytes: subscribers.reduce((sum, s) => sum + s.resyncBytes, 0),
      fullSnapshotBytes: subscribers.reduce((sum, s) => sum + s.fullSnapshotBytes, 0),
      convergedAfterThawMs: converged.length > 0 ? Math.max(...converged) : null,
    },
    damage: {
      byDecile: Object.fromEntries(result.consumers.map((c) => [c.name, wrongByDecile(c.wrongKeys, publisher.authority.versions.length)])),
      stalledOverlap: overlaps(stalledChecks),
    },
    drain: run.drain,
    wrongOverTime: run.wrongOverTime,
    rogue: run.rogue,
    events: run.events,
    wallSeconds: run.wallSeconds,
  };
}
