import type { BrokerReport, DigestVerdict, Mode, RogueReport } from '@state-divergence/protocol';
import type { Absorption, Explained, LatencySummary, Overlap, Verdict } from '../model/check-types.js';
import type {
  ConsumerLatency,
  Cost,
  DrainResult,
  DurableOutcome,
  ProcessCost,
  PublisherOutcome,
  Recovery,
  RelayOutcome,
  Resume,
  Resumption,
  WrongOverTime,
} from '../model/run-types.js';
import type { PublishingOrigin, RunEvent } from '../model/events.js';
import type { Fault } from '../model/faults.js';
import type { Options } from '../model/options.js';

/**
 * The --json document's shape: what `--json` prints, what each of the log's `result` lines
 * carries one run of, and what every report (text, HTML, `analyze`) is drawn from. Each field's
 * comment is its contract; docs/LOGS.md's field reference says the same per path, and
 * test/json-fields.test.ts fails on a field one of them has and the other lacks.
 */

/**
 * The shape of this document. Any change to it (a field added, renamed, removed
 * or given another meaning) bumps it, so a reader can refuse a document it would
 * misread. A document (or a log's `config` line) without it is version 1, the
 * shape written before the field existed.
 */
export const DOCUMENT_VERSION = 9;

/** The flags of a run as the document carries them (`modes` is derived from `mode`). */
export type JsonConfig = Omit<Options, 'modes'>;

export interface JsonDocument {
  /** The document's shape (DOCUMENT_VERSION): a reader refuses one of another version. */
  version: typeof DOCUMENT_VERSION;
  /** Every flag of the run, normalized (docs/FLAGS.md), less `modes`. */
  config: JsonConfig;
  /** One entry per mode run, in the order they ran. */
  runs: JsonRun[];
}

/** One mode's entry: the checker's map and the run's data, nothing rendered. */
export interface JsonRun {
  mode: Mode;
  /** The run's verdict: `invalid` beats `unknown` beats `valid` over its consumers. */
  valid: Verdict;
  /**
   * Why the verdict is `unknown` when the run as a whole could not be judged: the checker
   * failed, or the broker's report is missing (null otherwise).
   */
  checkerError: string | null;
  /** Keys the checker could not explain, over every consumer: must be 0. */
  unexplained: number;
  /** Changes the publisher made. */
  published: number;
  /** The publisher's rates and what a broker restart cost it. */
  publisher: PublisherOutcome;
  /** What the column paid, in the same run. */
  cost: Cost;
  /** Every healthy consumer's publish-to-apply latency in the stall, pooled (null: no samples). */
  healthyLatencyInStall: LatencySummary | null;
  /** The same before the stall, after a warm-up (the first second, or half the phase). */
  healthyLatencyBeforeStall: LatencySummary | null;
  /** CPU and peak memory of every process of the run, the orchestrator included. */
  processes: ProcessCost[];
  /** One row per consumer, in report order. */
  consumers: JsonConsumer[];
  /** The final broker's state (null: its report could not be gathered). */
  broker: JsonBroker | null;
  /**
   * `--crash broker@FROM-TO`, as it happened: `[{from, to}]` in seconds since publishing
   * started, from the SIGKILL to the new process's ready.
   */
  brokerOutages: Array<{ from: number; to: number }>;
  /** Each network-faulted client's relay, by client name; {} without network faults. */
  relays: Record<string, RelayOutcome>;
  /**
   * A mode with a log: the broker's last incarnation's log figures, what the run's consumers
   * were sent from it, and the publisher's `acknowledgedLost`; null otherwise.
   */
  durable: DurableOutcome | null;
  /**
   * Why no consumer's `expectedWrong` is predicted in this run; null: each is, where what it
   * missed is known.
   */
  noPrediction: string | null;
  /**
   * Each pair of faulted consumers that both ended wrong: keys wrong for both, for only one,
   * Jaccard (a correct one is in no pair).
   */
  faultedOverlap: Overlap[];
  /** --datagram-size; per stall, what the transport absorbed before the broker's queue filled. */
  transport: { datagramBytes: number; absorbed: Absorption[] };
  /** The live monitor's samples: keys wrong per consumer over time, and the publisher's rate. */
  wrongOverTime: WrongOverTime;
  /** How the final drain went: the checker trusts a wrong key as permanent only once drained. */
  drain: DrainResult;
  /** What a hostile client tried (--rogue-frames), and how the broker answered; null: none ran. */
  rogue: RogueReport | null;
  /** The run's own events, `at` on the run clock (ms since the mode started). */
  events: RunEvent[];
  /**
   * When publishing started on the run clock and the wall clock: seconds since publishing
   * started = (at - origin.runMs) / 1000 for an event, (t - origin.wallMs) / 1000 for a
   * child's Date.now.
   */
  origin: PublishingOrigin;
  /** Seconds from the start of publishing until the run was checked (the run clock, to 0.1 s). */
  wallSeconds: number;
}

/** One consumer's row: the checker's verdict on its copy and everything measured of it. */
export interface JsonConsumer {
  name: string;
  /**
   * Faulted at some point of the run: stalled, slowed, crashed, or its link partitioned, lossy
   * or delayed (`faults` says which, when).
   */
  faulted: boolean;
  /** What was done to it, when (seconds since publishing started); [] for a healthy one. */
  faults: Fault[];
  /** Events it applied (null: its copy could not be gathered). */
  applied: number | null;
  verdict: Verdict;
  /**
   * Why the verdict is `unknown` (null otherwise): its copy could not be gathered, the drain
   * gave up on it, the broker's report or its entry there is missing, the checker failed.
   */
  unknownBecause: string | null;
  /** How many keys it holds wrong at the end. */
  wrongCount: number;
  /** Those keys' names, the named control-plane keys first. */
  wrongKeys: string[];
  /** Wrong because behind: below the authority's version, missing, or held after a delete. */
  lost: number;
  /** (key, version, value) it holds that the publisher never emitted: must be 0. */
  unexpected: number;
  /** Wrong keys no explanation covers, and explained keys that are right: must be 0. */
  unexplained: number;
  /** Those keys' names. */
  unexplainedKeys: string[];
  /**
   * How many wrong keys each explanation covers: `missed` at the final broker; after a broker
   * restart also `forgotten`, `lostWithBroker`, `inDoubt`.
   */
  explained: Explained;
  /** Its digest of its own state equals the broker's (null: no comparison was possible). */
  digestMatch: boolean | null;
  /** The digest comparison itself (null: none was taken). */
  digest: DigestVerdict | null;
  /** Why its subscription ended before the run did (null: it did not). */
  endedEarly: string | null;
  /**
   * The pool process that hosted it (--pool-size), e.g. `pool-1`; null: a process of its own.
   * Nothing else about it differs.
   */
  pool: string | null;
  /** A consumer someone else wrote: the command it ran as (--consumer-cmd); null for ours. */
  command: string | null;
  /** How it broke the child contract (docs/CONSUMER.md), each a sentence; [] when it kept it. */
  contract: string[];
  /** How it recovered: lags, RESUMEs, syncs, disconnects, reconnects (null: it sent no report). */
  recovery: Recovery | null;
  /**
   * Each subscription after its process's first, and a first one from a checkpoint,
   * `at` on the wall clock.
   */
  resumes: Resume[];
  /** The checkpoint its process started from (durable): `{offset, epoch, keys}`; null: none. */
  restoredFrom: Resumption['restoredFrom'];
  /** Keys a snapshot removed from its copy: the broker's table no longer held them. */
  removedBySnapshot: number;
  /**
   * What the workload's key probabilities say it should end wrong about, given the offsets it
   * missed (null: unknown).
   */
  expectedWrong: number | null;
  /** Per hotness decile, hottest first, the fraction of keys it holds wrong. */
  wrongByDecile: number[];
  /** Per hotness decile, the fraction of keys that missed at least one update (null: unknown). */
  missedByDecile: number[] | null;
  /** Per decile, of the keys that missed an update, the share still wrong (wrong ÷ missed). */
  survivalByDecile: Array<number | null> | null;
  /** Its publish-to-apply latency, overall and in the stall (null: it sent no report). */
  latency: ConsumerLatency | null;
  /**
   * Stale time by its own clock, ms: no frame from the broker for over --stale-after ms (a
   * frozen consumer's stall counts once it thaws); null: it does not track it (lossy,
   * lossless, or a foreign consumer that does not say).
   */
  staleMs: number | null;
  /** Those spans, `[from, to]` in seconds since publishing started, oldest first. */
  staleSpans: Array<[number, number]>;
}

/** The final broker's state, as its last incarnation reported it. */
export interface JsonBroker {
  /** The highest offset it assigned. */
  head: number;
  /** Its digest of its compacted table at `head`. */
  digest: string;
  /** Its last incarnation's epoch (WELCOME's). */
  epoch: number;
  /** How many times it was killed and started again. */
  restarts: number;
  /** What its last start found on disk: `{records, tornTail}`; null: a first start, or no log. */
  recovered: BrokerReport['recovered'];
  /** Every name that ever subscribed, its figures summed over its subscriptions. */
  subscribers: BrokerReport['subscribers'];
}
