import type {
  BrokerReport,
  ConsumerReport,
  DigestVerdict,
  DurableReport,
  Mode,
  ProcessResources,
  PublisherReport,
  RelayReport,
  RogueReport,
  SubscriptionRecord,
  SyncRecord,
} from '@state-divergence/protocol';
import type { Absorption, CheckResult, ConsumerCheck, LatencySummary, Overlap, StallBytes } from './check-types.js';
import type { PublishingOrigin, RunEvent } from './events.js';
import type { Fault } from './faults.js';

/** What one mode's run gathered (GatheredRun) and what the check made of it (ModeResult). */
// Declared in model/ so that run/, report/, cli/ and experiments/ share them without importing
// check/, which computes them (check/outcome.ts assembleOutcome).

/**
 * How the final drain went: the checker trusts a wrong key as permanent only once its consumer
 * has drained.
 */
export interface DrainResult {
  complete: boolean;
  ms: number;
  /** Why each consumer still behind at the deadline was not drained. */
  behind: Record<string, string>;
}

export interface ConsumerLatency {
  all: LatencySummary | null;
  /** Events applied between SIGSTOP and SIGCONT of the stalled consumers. */
  inStall: LatencySummary | null;
}

export interface PublisherOutcome {
  published: number;
  /** Achieved rate over the publishing phases, changes/s. */
  achievedRate: number;
  /**
   * Achieved rate in the fault window while publishing went on (to the SIGCONT, or to the publisher's
   * last change if that came first): what lossless costs the publisher.
   */
  rateInStall: number;
  /** The changes that rate is of. */
  publishedInStall: number;
  /**
   * Achieved rate from the start of publishing to the stall's: what the rate in the stall is held
   * against, measured on the same machine in the same run (a busy machine slows both). Null when
   * the stall began as publishing did.
   */
  rateBeforeStall: number | null;
  blockedMs: number;
  /** Connections to a broker after the first (each after a broker restart), and the time spent without one. */
  reconnects: number;
  outageMs: number;
  /** Changes sent to a broker that died before acknowledging them: never made, never resent. */
  discarded: number;
  /** Acknowledged changes the broker it reconnected to no longer held (all of them, for a broker without a log). */
  acknowledgedLost: number;
}

export interface Recovery {
  lags: number;
  resumes: number;
  syncs: SyncRecord[];
  /** Lossy `--overflow disconnect`: ERRORs that ended its stream, and the subscriptions it made again at `latest`. */
  disconnects: number;
  reconnects: number;
  /** Deltas received, and the keys they re-sent in all. */
  deltas: number;
  keysResent: number;
  /**
   * From the end of its last fault (or of the broker's last outage) until it was right again: the
   * end of its last delta (resync), else, for a consumer that ends correct, until it had applied
   * every event published before then (a replay from the log, a backlog): see check/resumption.ts
   * `caughtUpAt`.
   */
  convergedAfterThawMs: number | null;
}

/**
 * A subscription after a consumer's first, or a first one from a checkpoint: when (wall clock),
 * what it resumed from, how, what catching up cost; `newEpoch`: its epoch is not the one before
 * it (the subscription before, or the checkpoint's): the broker lost its memory in between.
 */
export type Resume = Pick<SubscriptionRecord, 'at' | 'from' | 'epoch' | 'outcome' | 'catchUpBytes'> & {
  newEpoch: boolean;
};

/** How a consumer came back after losing its stream (a broker restart, a disconnect) or its process (a checkpoint). */
export interface Resumption {
  resumes: Resume[];
  /** The checkpoint its process started from (durable), if any. */
  restoredFrom: { offset: number; epoch: number; keys: number } | null;
  /** Keys a snapshot removed from its copy (the broker's table did not hold them). */
  removedBySnapshot: number;
}

/**
 * When the broker was down (`--crash broker@FROM-TO`), on the wall clock (Date.now, as
 * stallWindow): `from` when the SIGKILL was sent, `to` when its successor said ready.
 */
export interface BrokerOutage {
  from: number;
  to: number;
}

/** What each column cost, in the same run: the seed's "neither column is free". */
export interface Cost {
  publisherRate: number;
  publisherRateInStall: number;
  healthyP99InStallMs: number | null;
  /** Keys the faulted consumers (stalled, slowed or crashed) hold wrong at the end, summed: what the column failed to
   * protect. */
  faultedWrongAtEnd: number;
  /** Bytes of LAG + STATE + SYNC_END sent to bring stalled or gapped consumers back. */
  resyncBytes: number;
  /** What full snapshots would have cost at those same moments. */
  fullSnapshotBytes: number;
  /** Durable: bytes of events the broker sent the run's consumers from its log (replays after a resume, back-fills). */
  replayBytes: number;
  /** Bytes every resume cost (Resume.catchUpBytes summed): a snapshot after a restart, a replay; nothing for `latest`.
   * */
  reconnectBytes: number;
  /** Keys every consumer holds wrong at the end, summed: after a broker restart the healthy ones too. */
  wrongAtEnd: number;
  /** Durable: record bytes appended to the log and fsyncs, by the broker's last incarnation (null without a log). */
  diskBytes: number | null;
  fsyncs: number | null;
  convergedAfterThawMs: number | null;
}

export type ProcessCost = { name: string; role: string } & ProcessResources;

/**
 * What one client's fault relay did (a network fault: --partition, --loss, --delay): its report, and
 * its CPU per datagram it handled, forwarded or dropped, both ways (null: it handled none).
 */
// `stream` is a TCP relay's (a real system's run, its own document): our broker's relays speak UDP.
export type RelayOutcome = Omit<RelayReport, 'role' | 'stream'> & { microsPerDatagram: number | null };

/**
 * A consumer's stale time by its own clock (no frame from the broker for over `--stale-after` ms; a
 * frozen consumer's stall counts once it thaws): `staleMs`
 * null where it does not track it (its mode's broker is silent when idle, or a foreign consumer that
 * does not report it); `staleSpans` [from, to] in seconds since publishing started, oldest first.
 */
export interface Staleness {
  staleMs: number | null;
  staleSpans: Array<[number, number]>;
}

/** Where one consumer's damage is (check/damage-by-consumer.ts). */
export interface ConsumerDamage {
  /** Fraction of each hotness decile's keys it holds wrong, hottest first. */
  wrongByDecile: number[];
  /** Per decile, the fraction of keys that missed at least one update; null: unknown. */
  missedByDecile: number[] | null;
  /** Per decile, of the keys that missed an update, the share still wrong; null: unknown. */
  survivalByDecile: Array<number | null> | null;
  /** Keys the workload's probabilities say it should end wrong about, given what it missed. */
  expectedWrong: number | null;
}

/**
 * One consumer's result, one row: the checker's verdict on its copy (ConsumerCheck) and
 * everything measured of it. A consumer that sent no report has null where its report was
 * the source (latency, recovery, resumption, stale).
 */
export interface ConsumerOutcome extends ConsumerCheck, ConsumerDamage {
  /** Its faults, as scheduled (none for a healthy one). */
  faults: Fault[];
  /** Its digest of its own state against the broker's (null: none was taken). */
  digest: DigestVerdict | null;
  latency: ConsumerLatency | null;
  recovery: Recovery | null;
  /** Its resumes, checkpoint restore and keys a snapshot removed. */
  resumption: Resumption | null;
  /** Its stale time by its own clock (see Staleness). */
  stale: Staleness | null;
  /** A foreign consumer's command line (--consumer-cmd); null for ours. */
  command: string | null;
  /** Its contract failures (docs/CONSUMER.md), each a sentence naming it; []: it kept it. */
  contract: string[];
  /** The pool process that hosted it (--pool-size); null: a process of its own. */
  pool: string | null;
}

/** Durable: what the log cost and replayed (its last incarnation), and what the publisher lost. */
export type DurableOutcome = Omit<DurableReport, 'oldest'> & {
  /** The run's consumers' (replayedByConsumers in check/outcome.ts): the cost's replayBytes. */
  replayedEvents: number;
  replayBytes: number;
  acknowledgedLost: number;
};

/**
 * Per sample of the live monitor (`t`: seconds since publishing started): keys wrong now per
 * consumer (a frozen one repeats its last figure), and that split into diverged (will never
 * arrive) and behind (on their way), which are known for a frozen consumer too.
 */
export interface WrongOverTime {
  intervalMs: number;
  t: number[];
  /** Per consumer, one value per `t`; null before the consumer existed (a late joiner). */
  series: Record<string, Array<number | null>>;
  diverged: Record<string, Array<number | null>>;
  behind: Record<string, Array<number | null>>;
  publisherRate: number[];
}

export interface ModeResult {
  mode: Mode;
  published: number;
  publisher: PublisherOutcome;
  /** The run's verdict, and why it is `unknown` when the run as a whole could not be judged. */
  check: Omit<CheckResult, 'consumers'>;
  /** One row per consumer, in report order (the checker's). */
  consumers: ConsumerOutcome[];
  broker: BrokerReport | null;
  /** All healthy consumers' samples during the stall, pooled. */
  healthyInStall: LatencySummary | null;
  /** The same before the stall, after a warm-up (the first second, or half the phase). */
  healthyBeforeStall: LatencySummary | null;
  /** CPU and peak memory of every process of the run, the orchestrator included. */
  processes: ProcessCost[];
  /** The broker's outages, measured, in seconds since publishing started (as `faults`). */
  brokerOutages: Array<{ from: number; to: number }>;
  /** Null without a log. */
  durable: DurableOutcome | null;
  cost: Cost;
  wrongOverTime: WrongOverTime;
  /** What the consumers' damage shares (each one's is in its row): check/damage-by-consumer.ts. */
  damage: {
    /** Why no consumer's wrong keys are predicted in this run (e.g. two broker restarts); null: predicted where known.
     * */
    noPrediction: string | null;
    /** Each pair of faulted consumers both ending wrong: keys wrong for both or one; Jaccard. */
    faultedOverlap: Overlap[];
  };
  drain: DrainResult;
  /** What a hostile client tried during the run, and how the broker answered (--rogue-frames). */
  rogue: RogueReport | null;
  events: RunEvent[];
  /** When publishing started on the run clock (events) and the wall clock (the children's times). */
  origin: PublishingOrigin;
  /**
   * The transport the run used, and per stall how much it absorbed before the broker's queue began to fill:
   * with bigger datagrams a frozen consumer's QUIC stack swallows more, and the queue sees less of the stall.
   */
  transport: { datagramBytes: number; absorbed: Absorption[] };
  /** Wall-clock ms: when the publisher started, and the fault window (the `stalled` phase). */
  timing: { publishingStartedAt: number; stallWindow: { from: number; to: number } };
  wallSeconds: number;
  /** Each network-faulted client's relay, by the client's name (a consumer or `publisher`); {} in a run without network
   * faults. */
  relays: Record<string, RelayOutcome>;
}

export interface GatheredRun {
  mode: Mode;
  consumers: Array<{
    name: string;
    /** Faulted at some point of the run: stalled, slowed or crashed. */
    faulted: boolean;
    faults: Fault[];
    /** Wall-clock ms its last fault ended (null: never faulted): "correct again after" counts from here. */
    recoveredAt: number | null;
    report: ConsumerReport | null;
    digest: DigestVerdict | null;
    died: string | null;
  }>;
  publisher: PublisherReport;
  broker: BrokerReport | null;
  /** Wall-clock ms of the fault window, the `stalled` phase, opened by a freeze at its confirmation (run/steps.ts
   * PlanRecord). */
  stallWindow: { from: number; to: number };
  publishedInStall: number;
  /** Changes published before the stall window began. */
  publishedBeforeStall: number;
  drain: DrainResult;
  rogue: RogueReport | null;
  wrongOverTime: WrongOverTime;
  processes: ProcessCost[];
  events: RunEvent[];
  origin: PublishingOrigin;
  wallSeconds: number;
  /** Consumers someone else wrote (--consumer-cmd): their command lines, by name. */
  commands: Record<string, string>;
  /** Their contract failures (docs/CONSUMER.md), by name: each a sentence naming the consumer. */
  contract: Record<string, string[]>;
  /** The pool process hosting each pooled consumer (--pool-size), by name; absent or missing: a process of its own. */
  pools?: Record<string, string>;
  /** The run's largest QUIC datagram, bytes (--datagram-size). */
  datagramBytes: number;
  /** What the broker had sent each frozen consumer at its SIGSTOP and SIGCONT, one entry per stall. */
  stallBytes: StallBytes[];
  /**
   * `--crash broker@FROM-TO`: each time the broker was killed and started again, in order
   * (absent or empty: it never was; the number of restarts is its length). The checker needs
   * them to tell the subscriptions a dead broker served from the final one's.
   */
  brokerOutages?: BrokerOutage[];
  /**
   * Each network-faulted client's relay report, by the client's name (absent or empty: the run had no
   * network fault; a relay that could not answer is left out).
   */
  relays?: Record<string, RelayReport>;
}
