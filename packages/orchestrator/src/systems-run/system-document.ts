/**
 * The --json document of a run against a real system (`orchestrator --system NAME --json`): a
 * document of its own kind, not our broker's (report/json-document.ts), since a real system has
 * no modes, no broker report and no transport of ours. Each field's comment is its contract;
 * docs/LOGS.md's "The --system --json document" says the same per path, and
 * test/json-fields.test.ts fails on a field one of them has and the other lacks.
 */

import type { CapWindow } from '@state-divergence/protocol';

/** Any change to the shape bumps it, so a reader can refuse a document it would misread. */
export const SYSTEM_DOCUMENT_VERSION = 4;

export interface SystemRunDocument {
  /** `system-run`: tells this document from our broker's (which has no `kind`). */
  kind: 'system-run';
  /** The document's shape (SYSTEM_DOCUMENT_VERSION). */
  version: typeof SYSTEM_DOCUMENT_VERSION;
  /** The workload and the stalls every run of the document shared. */
  config: SystemRunConfig;
  /** Systems `--system all` left out, each as the line that says which package installs it. */
  skipped: string[];
  /** One entry per system × idiom run, in the order they ran. */
  runs: SystemRun[];
}

export interface SystemRunConfig {
  /** How many consumers (probe processes) each run started. */
  consumers: number;
  /** Changes published per second (--rate). */
  rate: number;
  /** Size of the keyspace (--keys): our publisher's key names and Zipf skew. */
  keys: number;
  /** Bytes per value (--payload). */
  payload: number;
  /** Fraction of changes that delete their key (--delete-ratio). */
  deleteRatio: number;
  /** The PRNG seed (--seed): the same seed writes the same changes as our publisher's. */
  seed: number;
  /** Seconds per phase (--duration): the default stall is [d, 3d), and the drain's minimum is 2d (`runs[].drain`). */
  duration: number;
  /** When publishing ended, seconds after it started. */
  publishEndsAt: number;
}

export interface SystemRun {
  /** The system's name (`--system`). */
  system: string;
  /** `naive` (the system's quickstart) or `careful` (what its docs recommend not to miss a change). */
  idiom: string;
  /** The run's namespace (key prefix, subject, bucket or stream name), removed at the end. */
  prefix: string;
  /** The server someone runs (`--endpoint`): scheme://host:port[/path], never a user or password; null: its own. */
  endpoint: string | null;
  /** Every knob of the system as the run set it, by name: the flags given, the system's defaults for the rest. */
  knobs: Record<string, string>;
  /** Each `--compact-at` the system carried out, in time order. */
  compactions: SystemCompaction[];
  /** Changes the publisher issued. */
  published: number;
  /** Of them, acknowledged by the system: the authority. */
  acknowledged: number;
  /** Keys live in the authority at the end. */
  authorityKeys: number;
  /** Every fault staged (stalls, slows, crashes, partitions, delays, resets), in time order, as it was asked for. */
  faults: SystemFault[];
  /** The TCP relay of each client a network fault named (--partition, --delay, --bandwidth, --reset), in name order;
   * [] without. */
  relays: SystemRelay[];
  /** Each stall, with what it cost the publisher and where it was held. */
  stalls: SystemStall[];
  /** The server's crashes (`--crash broker@FROM-TO`) and what they cost: none without one. */
  server: SystemServer;
  /** The server's own counters (NATS /varz, Redis INFO, etcd /metrics) before publishing and at the end. */
  counters: { before: Record<string, number>; after: Record<string, number> };
  /**
   * The healthy consumers' (no fault's) publish-to-apply latency, ms from the write's issue to its
   * apply, over the first stall's window (the whole run without a stall); null if none applied any.
   */
  healthyLatency: SystemLatency | null;
  /** How the drain after the last thaw went: how long, why it ended, the rule that ended it. */
  drain: SystemDrain;
  /** Every consumer, in name order. */
  consumers: SystemConsumer[];
  /** Keys wrong for a reason the evidence does not give, over every consumer: each a finding. */
  unexplained: number;
}

/**
 * The drain (systems-run/drain.ts): every copy compared with the authority every 250 ms until each
 * equals it, or, past `minMs`, no wrong copy has changed for `quietMs`, or `boundMs` passed.
 */
export interface SystemDrain {
  /** How long it took, ms. */
  ms: number;
  /**
   * `converged` (every copy equals the authority), `quiet` (the wrong copies had stopped changing: each
   * verdict stands) or `bound` (a copy was still changing: its consumer is `catching-up`).
   */
  ended: 'converged' | 'quiet' | 'bound';
  /** The least it lasts unless every copy is correct first: 2d, at least 2 s. */
  minMs: number;
  /** How long a wrong copy must not have changed (no apply, no relist) for its verdict to stand. */
  quietMs: number;
  /** The most it lasts: twice the publishing time (at least the minimum). */
  boundMs: number;
}

export interface SystemLatency {
  /** Changes counted. */
  count: number;
  /** Percentiles and the worst, ms (nearest rank). */
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

export interface SystemCompaction {
  /** When it ran, seconds since publishing started. */
  at: number;
  /** The revision history was compacted up to, or null if the system refused. */
  revision: number | null;
  /** The system's words when it refused (a revision compacted already), else null. */
  error: string | null;
}

export interface SystemFault {
  /** `stall`, `slow`, `crash`, `partition`, `delay`, `bandwidth` or `reset`. */
  kind: string;
  /** The faulted consumer, `broker` for the server, or `publisher` (a partition, delay or cap of its link). */
  target: string;
  /** Its window, seconds since publishing started (a reset's is one moment: from = to). */
  from: number;
  to: number;
  /** A slow's share of every 100 ms the consumer is stopped; null for the other kinds. */
  percent: number | null;
  /** A slow's periods: how many times (one per 100 ms) its consumer was sent SIGSTOP; null for the other kinds. */
  periods: number | null;
}

/**
 * What a client's TCP relay did (systems-run/network-links.ts), from the relay's own counters. Up:
 * client to server; down: server to client. With a relay the client's kernel queues are towards
 * the relay, not the server: a stall's `held*` fields then describe that hop.
 */
export interface SystemRelay {
  /** The client whose link it carried: a consumer or `publisher`. */
  client: string;
  /** Client connections it accepted, each given its own connection to the server: a reconnect is one more. */
  connections: number;
  /** Bytes it forwarded, each way. */
  forwardedBytes: { up: number; down: number };
  /** The most bytes it held at once (a partition, a delay), each way. */
  maxHeldBytes: { up: number; down: number };
  /** At each partition's heal, the bytes it held then (forwarded at once, in order), each way. */
  heals: { up: number; down: number }[];
  /** Connections a --reset destroyed (both sides, with an RST). */
  resetConnections: number;
  /** Bytes it held when their connection was reset or closed: never forwarded. */
  discardedBytes: number;
  /** Each --bandwidth cap of the link, in time order: what it paced, held and paused (the relay's CapWindow). */
  caps: CapWindow[];
}

export interface SystemServer {
  /** Each kill and restart, seconds since publishing started, as they happened. */
  restarts: { killedAt: number; restartedAt: number | null; readyAt: number | null }[];
  /** Writes that failed (not acknowledged, so not in the authority) after a kill. */
  failedWrites: number;
  /** When the first and the last of them failed; null without any. */
  firstFailureAt: number | null;
  lastFailureAt: number | null;
  /** The first failure's message, in the client's words; null without any. */
  failure: string | null;
  /** Failed writes the restarted server holds nonetheless: they joined the authority. */
  keptFailed: number;
  /** Keys acknowledged before a kill whose last write the restarted server no longer holds: judged for no consumer. */
  lostByServer: string[];
  /** What the server holds that no write explains (a value never written, a write lost after the restart): findings. */
  findings: { key: string; why: string }[];
}

export interface SystemStall {
  /** The frozen consumer. */
  consumer: string;
  /** Its window, seconds since publishing started. */
  from: number;
  to: number;
  /** Writes the system acknowledged inside the window. */
  acknowledged: number;
  /** Their rate, per second: a frozen consumer that slowed the publisher shows here. */
  ratePerSec: number;
  /** Bytes in the frozen consumer's TCP receive queues towards the server, read just before the thaw. */
  heldReceiveQueue: number;
  /**
   * Bytes in the server's send queues on those connections, read at the same moment; null when
   * the server is on another machine (`--endpoint`), whose kernel holds them out of sight.
   */
  heldServerSendQueue: number | null;
  /** How many of the consumer's TCP connections to the server were found. */
  heldConnections: number;
  /** Of them, those the server had closed by then (cut off as slow, or for its output buffer): see kernel-queues.ts. */
  heldClosedByServer: number;
}

export interface SystemConsumer {
  /** `consumer-1` …; the stalled ones are in `stalls[]`. */
  name: string;
  /** Whether it was frozen at some point. */
  stalled: boolean;
  /**
   * Each crash of it (`--crash NAME@FROM-TO`): killed, and its fresh process consuming, in seconds; its
   * copy is the last process's.
   */
  restarts: { killedAt: number; startedAt: number | null }[];
  /** Of the keys the server lost (`server.lostByServer`), how many its copy still holds as before the crash. */
  lostHeld: number;
  /** Changes it applied one by one (a relist's entries not counted). */
  applied: number;
  /** Times it replaced its copy with a listing of the system's state. */
  relists: number;
  /**
   * `correct` when its copy equals the authority at the end; `wrong` when it does not and had stopped
   * changing; `catching-up` when it does not and was still changing when the drain's bound ended it: a
   * backlog being applied, not a divergence (its wrong keys are those it had not reached yet).
   */
  state: 'correct' | 'wrong' | 'catching-up';
  /** When its copy last changed (an apply or a relist), seconds since publishing started; null: never. */
  lastChangeAt: number | null;
  /** Changes it applied in the second before the drain ended. */
  appliedLastSecond: number;
  /** The keys its copy has wrong at the end (missing, extra or stale), sorted. */
  wrongKeys: string[];
  /** Wrong keys whose last acknowledged write never reached it, with the evidence its signals give. */
  explained: { keys: number; evidence: string }[];
  /** Wrong keys the evidence does not explain (a value never written, a reached write, writes out of order). */
  unexplained: { key: string; why: string }[];
  /** Changes it applied with a lower seq than one it had already applied to the same key: a finding. */
  outOfOrder: number;
  /** What it was told or noticed, in order: kind, seconds since publishing started, the library's words. */
  signals: { kind: string; at: number; detail: string | null }[];
}
