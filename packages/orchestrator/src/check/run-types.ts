import type { BrokerReport, ConsumerReport, DigestVerdict, Mode, ProcessResources, PublisherReport, RogueReport, SyncRecord } from '@state-divergence/protocol';
import type { DrainResult } from '../model/drain.js';
import type { PublishingOrigin, RunEvent } from '../model/events.js';
import type { Fault } from '../model/faults.js';
import type { CheckResult } from './checker.js';
import type { Overlap } from './damage.js';
import type { LatencySummary } from './latency.js';
import type { BrokerRestart } from './reconnect.js';
import type { Absorption, StallBytes } from './transport.js';

/** What one mode's run gathered (GatheredRun) and what the check made of it (ModeResult). */

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
  /** Lossy `--overflow disconnect`: ERRORs that ended its stream, and the subscriptions it made again at `latest`. */
  disconnects: number;
  reconnects: number;
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
  /** Keys the faulted consumers (stalled, slowed or crashed) hold wrong at the end, summed: what the column failed to protect. */
  faultedWrongAtEnd: number;
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
  /** `--crash broker@FROM-TO`: how each consumer came back after the broker's last restart (null: it never restarted). */
  brokerRestart: BrokerRestart | null;
  /**
   * Per sample of the live monitor (`t`: seconds since publishing started): keys wrong now per consumer
   * (a frozen one repeats its last figure), and that split into diverged (will never arrive) and behind
   * (on their way), which are known for a frozen consumer too.
   */
  wrongOverTime: {
    intervalMs: number;
    t: number[];
    /** Per consumer, one value per `t`; null before the consumer existed (a late joiner). */
    series: Record<string, Array<number | null>>;
    diverged: Record<string, Array<number | null>>;
    behind: Record<string, Array<number | null>>;
    publisherRate: number[];
  };
  /**
   * Where the damage is, per consumer: the wrong fraction per hotness decile, the
   * fraction of each decile that missed at least one update (null when offsets
   * and versions cannot be matched), the keys the workload's probabilities say
   * it should end wrong about given what it missed; and the overlaps between
   * faulted consumers.
   */
  damage: {
    byDecile: Record<string, number[]>;
    missedByDecile: Record<string, number[] | null>;
    /** Per decile, of the keys that missed an update, the share still wrong ("hot keys self-repair" or not). */
    survivalByDecile: Record<string, Array<number | null> | null>;
    /** Absent where what it missed is unknown (its report or the broker's is missing). */
    expectedWrong: Record<string, number>;
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
  /** Foreign consumers (--consumer-cmd): command lines and contract failures, by name (see GatheredRun). */
  commands: Record<string, string>;
  contract: Record<string, string[]>;
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
  /** Wall-clock ms of SIGSTOP and SIGCONT. */
  stallWindow: { from: number; to: number };
  publishedInStall: number;
  drain: DrainResult;
  rogue: RogueReport | null;
  wrongOverTime: ModeResult['wrongOverTime'];
  processes: ProcessCost[];
  events: RunEvent[];
  origin: PublishingOrigin;
  wallSeconds: number;
  /** Consumers someone else wrote (--consumer-cmd): their command lines, by name. */
  commands: Record<string, string>;
  /** Their contract failures (docs/CONSUMER.md), by name: each a sentence naming the consumer. */
  contract: Record<string, string[]>;
  /** The run's largest QUIC datagram, bytes (--datagram-size). */
  datagramBytes: number;
  /** What the broker had sent each frozen consumer at its SIGSTOP and SIGCONT, one entry per stall. */
  stallBytes: StallBytes[];
}
