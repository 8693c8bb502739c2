import type { BrokerReport, ConsumerReport, SubscriberReport } from '@state-divergence/protocol';
import { checkSafely, type CheckInput, type CheckResult } from './checker.js';
import { overlaps } from './damage.js';
import { damageBy } from './damage-by-consumer.js';
import { summarizeLatency } from './latency.js';
import { brokerEvidenceOf, noBrokerEntry } from './missed.js';
import { relayOutcomes, stalenessOf } from './network.js';
import { undeliveredByDeadBrokers } from './restart-evidence.js';
import { caughtUpAt, resumptionOf } from './resumption.js';
import { absorbedInStalls } from './transport.js';
import type { ConsumerLatency, GatheredRun, ModeResult, PublisherOutcome, Recovery, Resumption } from './run-types.js';

export type { GatheredRun, ModeResult } from './run-types.js';

const round1 = (n: number): number => Math.round(n * 10) / 10;

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

/**
 * How a consumer recovered. "Correct again" counts from `since`, the end of its
 * own last fault or of the broker's last outage, whichever came later (each
 * consumer has its own window), and only for a consumer that ends correct.
 */
function recoveryOf(report: ConsumerReport, since: number | null, correct: boolean): Recovery {
  const deltas = report.syncs.filter((s) => s.kind === 'delta');
  return {
    lags: report.lags,
    resumes: report.resumes,
    syncs: report.syncs,
    disconnects: report.disconnects,
    reconnects: report.reconnects,
    deltas: deltas.length,
    keysResent: deltas.reduce((sum, s) => sum + s.keys, 0),
    convergedAfterThawMs: since !== null && correct ? round1(caughtUpAt(report, since) - since) : null,
  };
}

/** Per consumer: latency overall and in the stall, how it recovered and resumed; and the healthy ones' samples pooled. */
function perConsumer(run: GatheredRun, result: CheckResult) {
  const latency: Record<string, ConsumerLatency> = {};
  const recovery: Record<string, Recovery> = {};
  const resumption: Record<string, Resumption> = {};
  const healthy: ConsumerReport['latency'][] = [];
  const brokerBack = (run.brokerOutages ?? []).at(-1)?.to ?? null;
  for (const c of run.consumers) {
    if (c.report === null) continue;
    const since = c.recoveredAt === null ? brokerBack : brokerBack === null ? c.recoveredAt : Math.max(c.recoveredAt, brokerBack);
    const correct = result.consumers.find((r) => r.name === c.name)?.verdict === 'valid';
    latency[c.name] = { all: summarizeLatency(c.report.latency), inStall: summarizeLatency(c.report.latency, run.stallWindow) };
    recovery[c.name] = recoveryOf(c.report, since, correct);
    resumption[c.name] = resumptionOf(c.report);
    if (!c.faulted) healthy.push(c.report.latency);
  }
  return { latency, recovery, resumption, healthy: poolSamples(healthy) };
}

function publisherOutcome(run: GatheredRun): PublisherOutcome {
  const { publisher, stallWindow } = run;
  return {
    published: publisher.published,
    achievedRate: round1(publisher.published / Math.max(0.001, (publisher.stoppedAt - publisher.startedAt) / 1000)),
    rateInStall: round1(run.publishedInStall / ((stallWindow.to - stallWindow.from) / 1000)),
    blockedMs: Math.round(publisher.blockedMs),
    reconnects: publisher.reconnects,
    outageMs: Math.round(publisher.outageMs),
    discarded: publisher.discarded.length,
    acknowledgedLost: publisher.acknowledgedLost,
  };
}

function checkInput(run: GatheredRun): CheckInput {
  const { publisher, broker } = run;
  const outages = run.brokerOutages ?? [];
  return {
    authority: publisher.authority,
    history: publisher.history,
    broker: broker === null ? null : { head: broker.head, lastWriteOffsets: broker.lastWriteOffsets },
    discarded: publisher.discarded,
    consumers: run.consumers.map((c) => {
      const side = broker === null ? undefined : brokerEvidenceOf(broker, c.name);
      const noEvidence = broker !== null && side === undefined ? noBrokerEntry(c.name) : null;
      const undelivered = broker === null || c.report === null ? [] : undeliveredByDeadBrokers(c.report, outages, broker.epoch);
      return { ...c, dropped: side?.dropped ?? [], disconnectedAt: side?.disconnectedAt ?? null, noEvidence, undrained: run.drain.behind[c.name] ?? null, undelivered };
    }),
  };
}

/** The outages in seconds since publishing started (as `faults`), to the millisecond. */
function outagesSincePublishing(run: GatheredRun): Array<{ from: number; to: number }> {
  const seconds = (ms: number) => Math.round(ms - run.origin.wallMs) / 1000;
  return (run.brokerOutages ?? []).map((o) => ({ from: seconds(o.from), to: seconds(o.to) }));
}

const withoutOldest = ({ oldest: _oldest, ...rest }: NonNullable<BrokerReport['durable']>) => rest;

/**
 * What the broker sent the run's consumers from its log (a replay, a back-fill after a full queue):
 * the one source of the cost's replayBytes and of the durable block's figures. It counts every
 * consumer the log served, not only the stalled one: on a busy machine a healthy consumer's queue
 * fills too, and the broker back-fills it instead of dropping (modes.e2e saw 396,018 bytes of
 * which the stalled consumer's were 229,026).
 */
function replayedByConsumers(subscribers: SubscriberReport[]): { replayedEvents: number; replayBytes: number } {
  return {
    replayedEvents: subscribers.reduce((sum, s) => sum + s.replayedEvents, 0),
    replayBytes: subscribers.reduce((sum, s) => sum + s.replayBytes, 0),
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
  const { latency, recovery, resumption, healthy } = perConsumer(run, result);
  const healthyInStall = summarizeLatency(healthy, stallWindow);
  const warmUpMs = Math.min(1000, (stallWindow.from - publisher.startedAt) / 2);
  const healthyBeforeStall = summarizeLatency(healthy, { from: publisher.startedAt + warmUpMs, to: stallWindow.from });
  const rates = publisherOutcome(run);
  // The run's consumers only: a rogue client's subscriptions (--rogue-frames) are not part of any column's cost.
  const subscribers = run.consumers.flatMap((c) => broker?.subscribers[c.name] ?? []);
  const converged = Object.values(recovery).map((r) => r.convergedAfterThawMs).filter((ms): ms is number => ms !== null);
  const faultedChecks = result.consumers.filter((c) => c.faulted);
  const replayed = replayedByConsumers(subscribers);
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
    resumption,
    brokerOutages: outagesSincePublishing(run),
    durable: broker?.durable ? { ...withoutOldest(broker.durable), ...replayed, acknowledgedLost: publisher.acknowledgedLost } : null,
    faults: Object.fromEntries(run.consumers.map((c) => [c.name, c.faults])),
    cost: {
      publisherRate: rates.achievedRate,
      publisherRateInStall: rates.rateInStall,
      healthyP99InStallMs: healthyInStall?.p99 ?? null,
      faultedWrongAtEnd: faultedChecks.reduce((sum, c) => sum + c.wrongKeys.length, 0),
      resyncBytes: subscribers.reduce((sum, s) => sum + s.resyncBytes, 0),
      fullSnapshotBytes: subscribers.reduce((sum, s) => sum + s.fullSnapshotBytes, 0),
      replayBytes: replayed.replayBytes,
      reconnectBytes: Object.values(resumption).reduce((sum, r) => sum + r.resumes.reduce((n, s) => n + s.catchUpBytes, 0), 0),
      wrongAtEnd: result.consumers.reduce((sum, c) => sum + c.wrongKeys.length, 0),
      diskBytes: broker?.durable?.logBytes ?? null,
      fsyncs: broker?.durable?.fsyncs ?? null,
      convergedAfterThawMs: converged.length > 0 ? Math.max(...converged) : null,
    },
    // Only replicas that ended wrong are compared: the seed's point is two wrong copies wrong about
    // different keys; a faulted consumer that ended correct disagrees with nobody.
    damage: { ...damageBy(run, result), faultedOverlap: overlaps(faultedChecks.filter((c) => c.wrongKeys.length > 0)) },
    drain: run.drain,
    wrongOverTime: run.wrongOverTime,
    rogue: run.rogue,
    events: run.events,
    origin: run.origin,
    transport: { datagramBytes: run.datagramBytes, absorbed: absorbedInStalls(run.stallBytes, broker) },
    timing: { publishingStartedAt: publisher.startedAt, stallWindow },
    wallSeconds: run.wallSeconds,
    commands: run.commands,
    contract: run.contract,
    relays: relayOutcomes(run.relays),
    stale: Object.fromEntries(run.consumers.flatMap((c) => (c.report === null ? [] : [[c.name, stalenessOf(c.report, run.origin)]]))),
    pools: run.pools ?? {},
  };
}
