/**
 * What children tell the orchestrator about themselves over IPC: counters (live,
 * cheap, asked for often) and reports (complete, gathered once at the end of a
 * mode). Every one carries its role, so a reply is narrowed by it.
 */

export interface SubscriberCounters {
  queued: number;
  delivered: number;
  dropped: number;
  /** Highest offset accepted into this subscriber's queue (dropped ones excluded). */
  lastAccepted: number;
}

export interface BrokerCounters {
  role: 'broker';
  /** Highest offset assigned so far. */
  head: number;
  subscribers: Record<string, SubscriberCounters>;
}

export interface PublisherCounters {
  role: 'publisher';
  published: number;
  done: boolean;
}

export interface ConsumerCounters {
  role: 'consumer';
  applied: number;
  lastOffset: number;
  endedEarly: string | null;
  /** Between a LAG (or a gap it noticed) and the SYNC_END of the delta. */
  syncing: boolean;
}

export type Counters = BrokerCounters | PublisherCounters | ConsumerCounters | RogueCounters;

export interface SubscriberReport extends SubscriberCounters {
  /** Dropped offsets as inclusive [from, to] ranges (drops come in runs). */
  droppedRanges: Array<[number, number]>;
  maxQueued: number;
  endedEarly: string | null;
  /** Resync mode: times the queue overflowed and was replaced by a lag signal + delta. */
  lags: number;
  /** Resumes the subscriber asked for itself (it saw a gap in offsets). */
  resumes: number;
  /** Bytes and frames of LAG, STATE and SYNC_END sent to bring it back (snapshot at subscribe excluded). */
  resyncBytes: number;
  resyncFrames: number;
  /** What a full snapshot would have cost at each of those recoveries, summed. */
  fullSnapshotBytes: number;
  /** Events discarded from its queue on overflow (covered by the delta, not lost). */
  discarded: number;
}

export interface BrokerReport {
  role: 'broker';
  head: number;
  subscribers: Record<string, SubscriberReport>;
  /** For each key, the offset of its last write (0: never written): the checker's "explained" needs it. */
  lastWriteOffsets: number[];
  digest: string;
}

/** What a consumer learned by comparing its own digest with the broker's. */
export interface DigestVerdict {
  /** null: no comparison was possible (see `error`). */
  match: boolean | null;
  error?: string;
  local: string;
  broker: string;
  /** The broker's head when it computed its digest, and the consumer's last offset. */
  brokerOffset: number;
  localOffset: number;
}

export interface PublisherReport {
  role: 'publisher';
  published: number;
  /** Authoritative state, indexed by key; version 0 means never written; deleted 1 means the last write deleted it. */
  authority: { versions: number[]; values: number[]; deleted: number[] };
  /** Every change ever published, indexed by version - 1: the checker's "unexpected" needs it. */
  history: { keys: Uint32Array; values: Uint32Array; deleted: Uint8Array };
  /** Wall-clock ms of the first and last publish: the achieved rate's denominator. */
  startedAt: number;
  stoppedAt: number;
  /** Time spent waiting on the broker (lossless backpressure). */
  blockedMs: number;
}

/** Publish-to-apply latency samples, one pair per applied event (capped; see LatencyLog). */
export interface LatencySamples {
  /** Wall-clock ms when each event was applied. */
  appliedAt: Float64Array;
  /** appliedAt minus the event's publishedAt, ms. */
  latencyMs: Float64Array;
}

/** One completed snapshot or delta, as the consumer saw it. */
export interface SyncRecord {
  kind: 'snapshot' | 'delta';
  /** Wall-clock ms when SYNC_END arrived. */
  at: number;
  /** STATE frames in it, and distinct keys among them (equal: each key at most once). */
  frames: number;
  keys: number;
  bytes: number;
  offset: number;
}

export interface ConsumerReport {
  role: 'consumer';
  applied: number;
  lastOffset: number;
  /** The stream reached it from this offset on: WELCOME's head for a latest subscribe, 0 for a snapshot. */
  coveredAfter: number;
  latency: LatencySamples;
  /** LAG frames received, RESUMEs sent (gaps it noticed itself), and every sync. */
  lags: number;
  resumes: number;
  syncs: SyncRecord[];
  /** The local copy: [key, version, value] per key held (deleted keys are not held). */
  entries: Array<[number, number, number]>;
  endedEarly: string | null;
}

export interface RogueReport {
  role: 'rogue';
  connections: number;
  framesSent: number;
  /** ERROR frames received, by code name. */
  refusals: Record<string, number>;
  /** Connections that ended without an ERROR frame (closed, or timed out waiting). */
  closedWithoutError: number;
  /** Did pinning the decoy certificate fail the handshake, as it must? */
  wrongPinRejected: boolean | null;
  done: boolean;
  /**
   * Per attack, how the broker answered each of its connections: ERROR code name,
   * or 'none' when the connection ended without one. Shows that each insider
   * attack (valid token, semantically bad frames) met exactly its rule.
   */
  byAttack: Record<string, Record<string, number>>;
}

export interface RogueCounters {
  role: 'rogue';
  connections: number;
  framesSent: number;
  done: boolean;
}

export type Report = BrokerReport | PublisherReport | ConsumerReport | RogueReport;

/** What a process cost, as it reports at gather time (process.resourceUsage()). */
export interface ProcessResources {
  /** User + system CPU time since the process started. */
  cpuMs: number;
  /** Peak resident set size. */
  maxRssKb: number;
}
