/**
 * Messages between the orchestrator and its children over the Node IPC channel
 * (execa's sendMessage / getEachMessage, structured-clone serialisation).
 * A child boots (loads its modules) before its configuration exists, says
 * `booted`, and then receives its init message - never in argv: argv is
 * visible to every local user in `ps`. So every process of a run loads in
 * parallel while the certificate is made and the broker binds.
 */

export const MODES = ['lossy', 'lossless', 'resync'] as const;
export type Mode = (typeof MODES)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogSettings {
  level: LogLevel;
  /** NDJSON file every process appends to; null means stderr. */
  file: string | null;
  /** Bound into every line, so a log can be split by mode (null: not inside a mode's run). */
  mode: Mode | null;
}

/** Where a client finds the broker and how it recognises it. */
export interface BrokerEndpoint {
  host: string;
  port: number;
  /** The per-run self-signed certificate the client pins (PEM). */
  caPem: string;
  /** QUIC idle timeout; must outlast the longest stall (see docs/ARCHITECTURE.md). */
  idleTimeoutMs: number;
  /** The per-run access token, hex. Travels only over IPC: argv is visible to every local user in `ps`. */
  token: string;
}

export interface BrokerInit {
  role: 'broker';
  name: 'broker';
  mode: Mode;
  host: string;
  /** Keyspace size, for the per-key report. */
  keys: number;
  queueCapacity: number;
  /** Most events one write to one subscriber carries. */
  batchMaxEvents: number;
  /** Receive window for each client stream: how much a non-reading broker lets the publisher send. */
  streamWindowBytes: number;
  /** Resync mode: how often an idle subscriber is told the head offset. */
  heartbeatMs: number;
  certPem: string;
  keyPem: string;
  idleTimeoutMs: number;
  /** The per-run access token every client's HELLO must carry, hex. */
  token: string;
  log: LogSettings;
}

export interface PublisherInit {
  role: 'publisher';
  name: 'publisher';
  broker: BrokerEndpoint;
  keys: number;
  rate: number;
  payload: number;
  seed: number;
  /** Fraction of changes that delete their key. */
  deleteRatio: number;
  log: LogSettings;
}

export interface ConsumerInit {
  role: 'consumer';
  name: string;
  broker: BrokerEndpoint;
  /** latest: today's subscribe; snapshot: gap-free snapshot-plus-stream. */
  subscribeWith: 'latest' | 'snapshot';
  /** Check offsets are contiguous and ask for a resume on a gap (resync mode's defence in depth). */
  detectGaps: boolean;
  log: LogSettings;
}

/** A hostile client: it must change nothing about the run's outcome. */
export interface RogueInit {
  role: 'rogue';
  name: 'rogue';
  broker: BrokerEndpoint;
  /** A certificate that is not the broker's: pinning it must fail the handshake. */
  decoyCaPem: string;
  /** Frames to send in all, across many connections. */
  frames: number;
  seed: number;
  log: LogSettings;
}

export type ChildInit = BrokerInit | PublisherInit | ConsumerInit | RogueInit;
/** A child's role; every init, counters and report message carries it, so a reply is narrowed by it. */
export type ChildRole = ChildInit['role'];
export type InitOf<R extends ChildRole> = RoleMessages[R]['init'];

export type OrchestratorCommand =
  | { type: 'start'; durationMs: number }
  /** Answered by one `reply` with the same id, or a `refused` when the child cannot serve it. */
  | { type: 'request'; id: number; kind: RequestKind }
  /** The run entered a phase: bound into every later log line of the child. */
  | { type: 'phase'; phase: string }
  /** Broker: forget a subscriber whose process the orchestrator saw die (QUIC would take the idle timeout to notice). */
  | { type: 'endSubscriber'; name: string; reason: string }
  | { type: 'stop' };

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
/** Each role's init message, counters and report: every role-typed value is looked up here. */
export interface RoleMessages {
  broker: { init: BrokerInit; counters: BrokerCounters; report: BrokerReport };
  publisher: { init: PublisherInit; counters: PublisherCounters; report: PublisherReport };
  consumer: { init: ConsumerInit; counters: ConsumerCounters; report: ConsumerReport };
  rogue: { init: RogueInit; counters: RogueCounters; report: RogueReport };
}
export type CountersOf<R extends ChildRole> = RoleMessages[R]['counters'];
export type ReportOf<R extends ChildRole> = RoleMessages[R]['report'];

/** True when `value` (an init, counters or report) belongs to `role`: how a message is narrowed, never by a cast. */
export function isOfRole<R extends ChildRole, K extends keyof RoleMessages[ChildRole]>(value: RoleMessages[ChildRole][K], role: R): value is RoleMessages[R][K] {
  return value.role === role;
}

/** What a process cost, as it reports at gather time (process.resourceUsage()). */
export interface ProcessResources {
  /** User + system CPU time since the process started. */
  cpuMs: number;
  /** Peak resident set size. */
  maxRssKb: number;
}

/** What each request returns: the orchestrator's `request(kind)` is typed by this map. */
export interface RequestReplies {
  /** The role's counters right now. */
  status: Counters;
  /** The role's full report, and what the process cost so far. */
  gather: { report: Report; resources: ProcessResources };
  /** Consumers: compare the local digest with the broker's. */
  digest: DigestVerdict;
  /** Publisher and consumers: each key's live version right now (0: absent or deleted), for the live view. */
  versions: Float64Array;
}
export type RequestKind = keyof RequestReplies;

/** One reply per request kind, discriminated by `kind`, so a reply narrows without a cast. */
export type ReplyMessage = { [K in RequestKind]: { type: 'reply'; id: number; kind: K; value: RequestReplies[K] } }[RequestKind];

export type ChildMessage =
  /** Listening for its init message: modules loaded, nothing configured yet. */
  | { type: 'booted'; pid: number }
  | { type: 'ready'; pid: number; port?: number }
  | { type: 'progress'; counters: Counters }
  | ReplyMessage
  /** A request this child cannot serve (e.g. a digest asked of the broker): it answers, it does not die. */
  | { type: 'refused'; id: number; kind: RequestKind; message: string }
  | { type: 'done'; published: number }
  | { type: 'ended'; reason: string }
  | { type: 'fatal'; message: string };
