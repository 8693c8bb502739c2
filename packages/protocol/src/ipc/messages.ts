/**
 * Messages between the orchestrator and its children over the Node IPC channel
 * (execa's sendMessage / getEachMessage, structured-clone serialisation).
 * A child boots (loads its modules) before its configuration exists, says
 * `booted`, and then receives its init message - never in argv: argv is
 * visible to every local user in `ps`. So every process of a run loads in
 * parallel while the certificate is made and the broker binds.
 */

import type {
  BrokerCounters,
  BrokerReport,
  ConsumerCounters,
  ConsumerReport,
  Counters,
  DigestVerdict,
  LastWrites,
  PoolCounters,
  PoolReport,
  ProcessResources,
  PublisherCounters,
  PublisherReport,
  RelayCounters,
  RelayReport,
  Report,
  RogueCounters,
  RogueReport,
} from './reports.js';
import type { LinkShape } from '../link-shape.js';
import type { FsyncPolicy, Mode, QueuePolicy } from '../modes.js';
import type { KnobOptions, KnobsOf, Settings } from '../settings.js';

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
  idleTimeoutMs: Settings['idleTimeoutMs'];
  /**
   * Largest UDP payload, bytes (the datagramSize knob): the client sets it as QUIC's
   * maxSendUdpPayloadSize and maxRecvUdpPayloadSize (both ends must, or the connection stays at 1,350).
   */
  datagramBytes: Settings['datagramSize'];
  /** The per-run access token, hex. Travels only over IPC: argv is visible to every local user in `ps`. */
  token: string;
}

/** Where and how a broker keeps its log (BrokerInit.durableLog; null in a mode without one). */
export interface DurableSettings extends Pick<KnobOptions, 'retention'> {
  /** The broker's own directory (the run's data dir holds it and each consumer's checkpoint directory). */
  dir: string;
  fsync: FsyncPolicy;
}

/**
 * Its knobs (keys, queueCapacity, coalesceMs, idleTimeoutMs: settings.ts) are derived from the
 * table. It is sent features, not a mode: `queuePolicy`, `durableLog` and `heartbeatMs` are the
 * mode's row resolved by the orchestrator (run/mode-features.ts), so the broker never reads the
 * table and no field can contradict another about what the mode is. Its log lines carry the
 * mode's name (`log.mode`) for the reader only.
 */
export interface BrokerInit extends Pick<Settings, KnobsOf<'broker'>> {
  role: 'broker';
  name: 'broker';
  host: string;
  /** UDP port to bind: 0 for any (the first start), the first start's port for a restart, so clients find it again. */
  port: number;
  /**
   * What a full subscriber queue does (modes.ts QueuePolicy): the mode's, or `--overflow`'s where
   * the mode leaves it to the flag.
   */
  queuePolicy: QueuePolicy;
  /**
   * The log it keeps on disk, and so what it is: with one it appends before fanning out, replays
   * for an offset start, answers a RESUME with the log's events and keeps its epoch across a
   * restart; null: none (a RESUME gets a delta from the compacted table, each start a new epoch).
   */
  durableLog: DurableSettings | null;
  /** Most events one write to one subscriber carries. */
  batchMaxEvents: number;
  /** Receive window for each client stream: how much a non-reading broker lets the publisher send. */
  streamWindowBytes: number;
  /** Largest UDP payload it sends and accepts (BrokerEndpoint.datagramBytes tells the clients the same). */
  datagramBytes: Settings['datagramSize'];
  /** How often an idle subscriber is told the head (PROGRESS); null: an idle broker is silent. */
  heartbeatMs: number | null;
  certPem: string;
  keyPem: string;
  /** The per-run access token every client's HELLO must carry, hex. */
  token: string;
  log: LogSettings;
}

/** Its workload (keys, rate, payload, seed, deleteRatio: settings.ts) is derived from the table. */
export interface PublisherInit extends Pick<Settings, KnobsOf<'publisher'>> {
  role: 'publisher';
  name: 'publisher';
  broker: BrokerEndpoint;
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
  /**
   * The broker keeps a log (BrokerInit.durableLog): a lost subscription resumes from its last
   * offset in the same epoch, and a RESUME is answered with the log's events, not a delta.
   */
  resumable: boolean;
  /**
   * Where the broker keeps a log: this consumer's own directory for its checkpoint (its local copy
   * and last contiguous offset, written together). A restart finds it there and resumes from the
   * offset. null: no checkpoint.
   */
  checkpointDir: string | null;
  /**
   * Where the broker speaks even to an idle subscriber (modes.ts `heartbeat`): after this long with
   * no frame from the broker the consumer counts itself stale (cut off, or the broker silent) until
   * the next frame. null: the mode's broker is silent when nothing is published, so silence means nothing.
   */
  staleAfterMs: Settings['staleAfterMs'] | null;
  log: LogSettings;
}

/** A hostile client: it must change nothing about the run's outcome. rogueFrames: frames to send in all, across many
 * connections. */
export interface RogueInit extends Pick<Settings, KnobsOf<'rogue'>> {
  role: 'rogue';
  name: 'rogue';
  broker: BrokerEndpoint;
  /** A certificate that is not the broker's: pinning it must fail the handshake. */
  decoyCaPem: string;
  log: LogSettings;
}

/**
 * The fault relay between one client (a consumer or the publisher) and the broker: it listens on
 * its own UDP port, which that client is given as the broker's, and forwards each datagram to
 * `upstream` from one socket per client address, shaped per direction by `shape` commands.
 */
export type RelayTransport = 'udp' | 'tcp';

/** `seed` (settings.ts) seeds its drop and jitter draws, so a run's shaping repeats with its seed. */
export interface RelayInit extends Pick<Settings, KnobsOf<'relay'>> {
  role: 'relay';
  /** `relay-<client name>`. */
  name: string;
  /** The client whose link it carries (for its logs and report). */
  client: string;
  /** The broker's address. A restarted broker binds the same port, so the relay never changes it. */
  upstream: { host: string; port: number };
  /**
   * What it carries: `udp` (our QUIC, the default when absent) datagram by datagram, or `tcp` (a real
   * system's clients): one upstream connection per accepted client connection, its bytes held in order.
   */
  transport?: RelayTransport;
  /** The run's datagram size, for its log (`relay listening`). Its socket buffers are a fixed 4 MiB, 64 of the largest
   * UDP datagrams: enough at any size. */
  datagramBytes: Settings['datagramSize'];
  log: LogSettings;
}

/**
 * Many healthy consumers in one process (--pool-size): each member keeps its own QUIC connection,
 * subscription, local copy, counters and digest, built from its own init exactly as a consumer
 * process of its own builds them. A consumer that is faulted (SIGSTOP, SIGKILL and a relay act on
 * a whole process), joins late or is foreign always runs alone.
 */
export interface PoolInit {
  role: 'pool';
  /** `pool-<n>`. */
  name: string;
  /** One init per member, in the order its consumers were named; at least one. */
  members: ConsumerInit[];
  log: LogSettings;
}

export type ChildInit = BrokerInit | PublisherInit | ConsumerInit | RogueInit | RelayInit | PoolInit;
/** A child's role; every init, counters and report message carries it, so a reply is narrowed by it. */
export type ChildRole = ChildInit['role'];
export type InitOf<R extends ChildRole> = RoleMessages[R]['init'];

export type OrchestratorCommand =
  | { type: 'start'; durationMs: number }
  /**
   * Answered by one `reply` with the same id, or a `refused` when the child cannot serve it.
   * `member`: to a pool, the consumer it hosts that must answer (absent: the pool answers for itself).
   */
  | { type: 'request'; id: number; kind: RequestKind; member?: string }
  /** The run entered a phase: bound into every later log line of the child, and nothing else. */
  | { type: 'phase'; phase: string }
  /**
   * The run is over and every process is about to be stopped: a stream that ends from now on is
   * the run's end, not a failure. Answered by nothing; a later request's reply confirms it was taken (IPC is ordered).
   */
  | { type: 'ending' }
  /** Broker: forget a subscriber whose process the orchestrator saw die (QUIC would take the idle timeout to notice).
   * */
  | { type: 'endSubscriber'; name: string; reason: string }
  /**
   * Publisher and our consumers: the broker was killed. A TCP peer would learn it at once from a
   * reset; our QUIC library sends no stateless reset to a packet for a connection it does not know,
   * so a client would wait out its idle timeout. The orchestrator stands in for the reset: the
   * client drops its connection and reconnects with backoff until a broker answers.
   * `member`: to a pool, the consumer it concerns (absent: every consumer it hosts).
   */
  | { type: 'brokerLost'; member?: string }
  /** Relay: shape each direction from now on (`up`: client to broker). CLEAR_LINK for both ends a network fault. */
  | { type: 'shape'; up: LinkShape; down: LinkShape }
  /** A TCP relay: destroy both sides of every connection it carries (RST), as a NAT or load balancer drops a flow. */
  | { type: 'reset' }
  | { type: 'stop' };

/** Each role's init message, counters and report: every role-typed value is looked up here. */
export interface RoleMessages {
  broker: { init: BrokerInit; counters: BrokerCounters; report: BrokerReport };
  publisher: { init: PublisherInit; counters: PublisherCounters; report: PublisherReport };
  consumer: { init: ConsumerInit; counters: ConsumerCounters; report: ConsumerReport };
  rogue: { init: RogueInit; counters: RogueCounters; report: RogueReport };
  relay: { init: RelayInit; counters: RelayCounters; report: RelayReport };
  pool: { init: PoolInit; counters: PoolCounters; report: PoolReport };
}
export type CountersOf<R extends ChildRole> = RoleMessages[R]['counters'];
export type ReportOf<R extends ChildRole> = RoleMessages[R]['report'];

/** True when `value` (an init, counters or report) belongs to `role`: how a message is narrowed, never by a cast. */
export function isOfRole<R extends ChildRole, K extends keyof RoleMessages[ChildRole]>(
  value: RoleMessages[ChildRole][K],
  role: R,
): value is RoleMessages[R][K] {
  return value.role === role;
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
  /** Broker: each key's last-write offset, and each subscriber name's drops and disconnection, right now (see
   * LastWrites). */
  lastWrites: LastWrites;
}
export type RequestKind = keyof RequestReplies;

/** One reply per request kind, discriminated by `kind`, so a reply narrows without a cast. */
export type ReplyMessage = {
  [K in RequestKind]: { type: 'reply'; id: number; kind: K; value: RequestReplies[K] };
}[RequestKind];

export type ChildMessage =
  /** Listening for its init message: modules loaded, nothing configured yet. */
  | { type: 'booted'; pid: number }
  | { type: 'ready'; pid: number; port?: number }
  /** `member`: a pool's member's counters (absent: the sender's own). */
  | { type: 'progress'; counters: Counters; member?: string }
  | ReplyMessage
  /** A request this child cannot serve (e.g. a digest asked of the broker): it answers, it does not die. */
  | { type: 'refused'; id: number; kind: RequestKind; message: string }
  | { type: 'done'; published: number }
  /** A consumer's subscription ended early; `member`: which of a pool's. */
  | { type: 'ended'; reason: string; member?: string }
  | { type: 'fatal'; message: string };
