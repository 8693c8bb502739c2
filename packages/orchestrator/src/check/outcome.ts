import type { BrokerReport, ConsumerReport, SubscriberReport } from '@state-divergence/protocol';
import type { ConsumerCheck } from '../model/check-types.js';
import type {
  ConsumerLatency,
  ConsumerOutcome,
  GatheredRun,
  ModeResult,
  PublisherOutcome,
  Recovery,
} from '../model/run-types.js';
import { checkSafely, type CheckInput } from './checker.js';
import { overlaps } from './damage.js';
import { damageBy } from './damage-by-consumer.js';
import { summarizeLatency } from './latency.js';
import { brokerEvidenceOf, noBrokerEntry } from './missed.js';
import { relayOutcomes, stalenessOf } from './network.js';
import { undeliveredByDeadBrokers } from './restart-evidence.js';
import { caughtUpAt, resumptionOf } from './resumption.js';
import { absorbedInStalls } from './transport.js';

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

/**
 * Each consumer's row: the checker's verdict joined with what it measured of itself (latency
 * overall and in the stall, how it recovered and resumed, its stale time), its damage, and what
 * the run knew of it (faults, digest, foreign command and contract failures, pool). In the
 * checker's order.
 */
function consumerRows(
  run: GatheredRun,
  checks: ConsumerCheck[],
  damage: ReturnType<typeof damageBy>,
): ConsumerOutcome[] {
  const gathered = new Map(run.consumers.map((c) => [c.name, c]));
  const brokerBack = (run.brokerOutages ?? []).at(-1)?.to ?? null;
  const latencyOf = (r: ConsumerReport): ConsumerLatency => ({
    all: summarizeLatency(r.latency),
    inStall: summarizeLatency(r.latency, run.stallWindow),
  });
  return checks.map((check): ConsumerOutcome => {
    const c = gathered.get(check.name)!;
    // "Correct again" counts from the later of its own last fault's end and the broker's return.
    const ends = [c.recoveredAt, brokerBack].filter((t): t is number => t !== null);
    const since = ends.length === 0 ? null : Math.max(...ends);
    const { report } = c;
    return {
      ...check,
      ...damage.of(c, check),
      faults: c.faults,
      digest: c.digest,
      latency: report === null ? null : latencyOf(report),
      recovery: report === null ? null : recoveryOf(report, since, check.verdict === 'valid'),
      resumption: report === null ? null : resumptionOf(report),
      stale: report === null ? null : stalenessOf(report, run.origin),
      command: run.commands[c.name] ?? null,
      contract: run.contract[c.name] ?? [],
      pool: run.pools?.[c.name] ?? null,
    };
  });
}

/** The healthy consumers' latency samples, pooled. */
function healthySamples(run: GatheredRun): ConsumerReport['latency'] {
  const healthy = run.consumers.filter((c) => !c.faulted);
  return poolSamples(healthy.flatMap((c) => (c.report === null ? [] : [c.report.latency])));
}

function publisherOutcome(run: GatheredRun): PublisherOutcome {
  const { publisher, stallWindow } = run;
  const beforeStallMs = stallWindow.from - publisher.startedAt;
  // The stall's publishing time: a window that outlasts publishing (its thaw waits for the last change,
  // which a busy machine makes late, then for the broker and /proc) holds no publishing after it stopped.
  const publishingEnded =
    publisher.stoppedAt > stallWindow.from ? Math.min(stallWindow.to, publisher.stoppedAt) : stallWindow.to;
  return {
    published: publisher.published,
    achievedRate: round1(publisher.published / Math.max(0.001, (publisher.stoppedAt - publisher.startedAt) / 1000)),
    rateInStall: round1(run.publishedInStall / ((publishingEnded - stallWindow.from) / 1000)),
    publishedInStall: run.publishedInStall,
    rateBeforeStall: beforeStallMs > 0 ? round1(run.publishedBeforeStall / (beforeStallMs / 1000)) : null,
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
      const undelivered =
        broker === null || c.report === null ? [] : undeliveredByDeadBrokers(c.report, outages, broker.epoch);
      return {
        ...c,
        dropped: side?.dropped ?? [],
        disconnectedAt: side?.disconnectedAt ?? null,
        noEvidence,
        undrained: run.drain.behind[c.name] ?? null,
        undelivered,
      };
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
  const { consumers: checks, ...check } = checkSafely(checkInput(run), checker);
  const damage = damageBy(run);
  const consumers = consumerRows(run, checks, damage);
  const healthy = healthySamples(run);
  const healthyInStall = summarizeLatency(healthy, stallWindow);
  const warmUpMs = Math.min(1000, (stallWindow.from - publisher.startedAt) / 2);
  const healthyBeforeStall = summarizeLatency(healthy, { from: publisher.startedAt + warmUpMs, to: stallWindow.from });
  const rates = publisherOutcome(run);
  // The run's consumers only: a rogue client's subscriptions (--rogue-frames) are not part of any column's cost.
  const subscribers = run.consumers.flatMap((c) => broker?.subscribers[c.name] ?? []);
  const converged = consumers
    .map((c) => c.recovery?.convergedAfterThawMs ?? null)
    .filter((ms): ms is number => ms !== null);
  const faulted = consumers.filter((c) => c.faulted);
  const replayed = replayedByConsumers(subscribers);
  const catchUpBytes = (c: ConsumerOutcome) => (c.resumption?.resumes ?? []).reduce((n, s) => n + s.catchUpBytes, 0);
  return {
    mode: run.mode,
    published: publisher.published,
    publisher: rates,
    check,
    consumers,
    broker,
    healthyInStall,
    healthyBeforeStall,
    processes: run.processes,
    brokerOutages: outagesSincePublishing(run),
    durable: broker?.durable
      ? { ...withoutOldest(broker.durable), ...replayed, acknowledgedLost: publisher.acknowledgedLost }
      : null,
    cost: {
      publisherRate: rates.achievedRate,
      publisherRateInStall: rates.rateInStall,
      healthyP99InStallMs: healthyInStall?.p99 ?? null,
      faultedWrongAtEnd: faulted.reduce((sum, c) => sum + c.wrongKeys.length, 0),
      resyncBytes: subscribers.reduce((sum, s) => sum + s.resyncBytes, 0),
      fullSnapshotBytes: subscribers.reduce((sum, s) => sum + s.fullSnapshotBytes, 0),
      replayBytes: replayed.replayBytes,
      reconnectBytes: consumers.reduce((sum, c) => sum + catchUpBytes(c), 0),
      wrongAtEnd: consumers.reduce((sum, c) => sum + c.wrongKeys.length, 0),
      diskBytes: broker?.durable?.logBytes ?? null,
      fsyncs: broker?.durable?.fsyncs ?? null,
      convergedAfterThawMs: converged.length > 0 ? Math.max(...converged) : null,
    },
    // Only replicas that ended wrong are compared: the seed's point is two wrong copies wrong about
    // different keys; a faulted consumer that ended correct disagrees with nobody.
    damage: {
      noPrediction: damage.noPrediction,
      faultedOverlap: overlaps(faulted.filter((c) => c.wrongKeys.length > 0)),
    },
    drain: run.drain,
    wrongOverTime: run.wrongOverTime,
    rogue: run.rogue,
    events: run.events,
    origin: run.origin,
    transport: { datagramBytes: run.datagramBytes, absorbed: absorbedInStalls(run.stallBytes, broker) },
    timing: { publishingStartedAt: publisher.startedAt, stallWindow },
    wallSeconds: run.wallSeconds,
    relays: relayOutcomes(run.relays),
  };
}
