import { keyName } from '@state-divergence/protocol';
import type { ModeResult } from '../check/outcome.js';
import type { Options } from '../model/options.js';

/**
 * The --json document: the run's configuration and, per mode, the checker's
 * map and the run's data. Every report (text, HTML, `analyze`) is drawn from
 * this document alone, and the log's `result` lines carry it.
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
export type JsonRun = ReturnType<typeof toJsonRun>;
export interface JsonDocument {
  version: typeof DOCUMENT_VERSION;
  config: JsonConfig;
  runs: JsonRun[];
}

export function toJsonConfig(options: Options): JsonConfig {
  const { modes: _modes, ...config } = options;
  return config;
}

/**
 * One mode's entry of the --json document: the checker's map and the run's data,
 * nothing rendered. The text report is rendered from this too, and it is what
 * the log's `result` line carries, so `orchestrator analyze` can rebuild both.
 */
export function toJsonRun(r: ModeResult) {
  return {
    mode: r.mode,
    valid: r.check.verdict,
    /** Why the verdict is `unknown` when the run as a whole could not be judged: the checker failed, or the broker's report is missing (null otherwise). */
    checkerError: r.check.error ?? null,
    /** Keys the checker could not explain, over every consumer: must be 0. */
    unexplained: r.check.consumers.reduce((sum, c) => sum + c.unexplainedKeys.length, 0),
    published: r.published,
    publisher: r.publisher,
    cost: r.cost,
    healthyLatencyInStall: r.healthyInStall,
    healthyLatencyBeforeStall: r.healthyBeforeStall,
    processes: r.processes,
    consumers: r.check.consumers.map((c) => ({
      name: c.name,
      /** Faulted at some point of the run: stalled, slowed, crashed, or its link partitioned, lossy or delayed (`faults` says which, when). */
      faulted: c.faulted,
      /** What was done to it, when (seconds since publishing started): `[{kind, consumer, from, to}]`, `percent` for slow, `lossPct`/`correlationPct` for loss, `delayMs`/`jitterMs` for delay. */
      faults: r.faults[c.name] ?? [],
      applied: c.applied,
      verdict: c.verdict,
      /** Why the verdict is `unknown` (null otherwise): its copy could not be gathered, the drain gave up on it, the broker's report or its entry there is missing, the checker failed. */
      unknownBecause: c.unknownBecause,
      wrongCount: c.wrongKeys.length,
      wrongKeys: c.wrongKeys.map(keyName),
      lost: c.lost,
      unexpected: c.unexpected,
      unexplained: c.unexplainedKeys.length,
      unexplainedKeys: c.unexplainedKeys.map(keyName),
      /** How many wrong keys each explanation covers: `missed` at the final broker; after a broker restart also `forgotten`, `lostWithBroker`, `inDoubt`. */
      explained: c.explained,
      digestMatch: r.digests[c.name]?.match ?? null,
      digest: r.digests[c.name] ?? null,
      endedEarly: c.endedEarly,
      /** The pool process that hosted it (--pool-size), e.g. `pool-1`; null: a process of its own. Nothing else about it differs. */
      pool: r.pools[c.name] ?? null,
      /** A consumer someone else wrote: the command it ran as (--consumer-cmd); null for ours. */
      command: r.commands[c.name] ?? null,
      /** How it broke the child contract (docs/CONSUMER.md), each a sentence; [] when it kept it. */
      contract: r.contract[c.name] ?? [],
      recovery: r.recovery[c.name] ?? null,
      /** Each subscription after its process's first, and a first one from a checkpoint: `{at, from, epoch, outcome, catchUpBytes}`, `at` on the wall clock. */
      resumes: r.resumption[c.name]?.resumes ?? [],
      /** The checkpoint its process started from (durable): `{offset, epoch, keys}`; null: none. */
      restoredFrom: r.resumption[c.name]?.restoredFrom ?? null,
      /** Keys a snapshot removed from its copy: the broker's table no longer held them. */
      removedBySnapshot: r.resumption[c.name]?.removedBySnapshot ?? 0,
      /** What the workload's key probabilities say it should end wrong about, given the offsets it missed. */
      expectedWrong: r.damage.expectedWrong[c.name] ?? null,
      wrongByDecile: r.damage.byDecile[c.name] ?? null,
      /** Per hotness decile, the fraction of keys that missed at least one update (survival = wrong ÷ missed). */
      missedByDecile: r.damage.missedByDecile[c.name] ?? null,
      survivalByDecile: r.damage.survivalByDecile[c.name] ?? null,
      latency: r.latency[c.name] ?? null,
      /** Stale time by its own clock, ms: no frame from the broker for over --stale-after ms (a frozen consumer's stall counts once it thaws); null: it does not track it (lossy, lossless, or a foreign consumer that does not say). */
      staleMs: r.stale[c.name]?.staleMs ?? null,
      /** Those spans, `[from, to]` in seconds since publishing started, oldest first. */
      staleSpans: r.stale[c.name]?.staleSpans ?? [],
    })),
    broker:
      r.broker === null
        ? null
        : {
            head: r.broker.head,
            digest: r.broker.digest,
            /** Its last incarnation's epoch (WELCOME's); `restarts`: how many times it was killed and started again. */
            epoch: r.broker.epoch,
            restarts: r.brokerOutages.length,
            /** What its last start found on disk: `{records, tornTail}`; null: a first start, or a broker without a log. */
            recovered: r.broker.recovered,
            subscribers: r.broker.subscribers,
          },
    /** `--crash broker@FROM-TO`, as it happened: `[{from, to}]` in seconds since publishing started, from the SIGKILL to the new process's ready. */
    brokerOutages: r.brokerOutages,
    /** Each network-faulted client's relay, by client name: `{up, down, clients, cpuMicros, microsPerDatagram}`; {} without network faults. */
    relays: r.relays,
    /** A mode with a log: `{fsync, logBytes, fsyncs, replayedEvents, replayBytes}` of the broker's last incarnation, and the publisher's `acknowledgedLost`; null otherwise. */
    durable: r.durable,
    /** Why no consumer's `expectedWrong` is predicted in this run; null: each is, where what it missed is known. */
    noPrediction: r.damage.noPrediction,
    /** Each pair of faulted consumers that both ended wrong: keys wrong for both, for only one, Jaccard (a correct one is in no pair). */
    faultedOverlap: r.damage.faultedOverlap,
    /** --datagram-size, and per stall what the transport absorbed before the broker's queue filled. */
    transport: r.transport,
    wrongOverTime: r.wrongOverTime,
    drain: r.drain,
    rogue: r.rogue,
    /** The run's own events, `at` on the run clock (ms since the mode started). */
    events: r.events,
    /** When publishing started on the run clock and the wall clock: seconds since publishing started = (at - origin.runMs) / 1000 for an event, (t - origin.wallMs) / 1000 for a child's Date.now. */
    origin: r.origin,
    wallSeconds: r.wallSeconds,
  };
}
