import type { FsyncPolicy } from '../modes.js';
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
  /** Bytes handed to its QUIC stream so far (every write, the one still pending included). */
  bytesSent: number;
}

/**
 * A write to one subscriber that stayed pending 100 ms or more: for
 * a frozen consumer, the write that blocked once the transport had absorbed all
 * it would. From then on the broker's queue takes everything (docs/ARCHITECTURE.md).
 */
export interface BlockedWrite {
  /** When it was handed to the stream, ms since the epoch (the broker's Date.now). */
  startedAt: number;
  /** `bytesSent` just before it: what the transport had taken when it blocked. */
  bytesBefore: number;
  /** Its own size. */
  bytes: number;
  /** How long it stayed pending (up to the report, if it still is). */
  ms: number;
}

/**
 * One thing that happened to a subscriber name at the broker, as its log says it:
 * a subscription began at `offset` (the first, a reconnect, a restart), a run of
 * drops started at `offset` or ended with `offset` accepted, the queue overflowed
 * under resync (LAG from `offset`), the subscriber asked to resume from
 * `offset`, a delta up to `offset` was handed to its stream, or the broker
 * disconnected it as a slow consumer at `offset`. The report's timeline draws these.
 */
export interface SubscriberMark {
  /** ms since the epoch (the broker's Date.now, as BlockedWrite.startedAt). */
  at: number;
  what: SubscriberMarkKind;
  offset: number;
}
export type SubscriberMarkKind =
  'subscribed' | 'drops started' | 'drops ended' | 'lagged' | 'resume requested' | 'delta sent' | 'disconnected';

export interface BrokerCounters {
  role: 'broker';
  /** The broker's clock (Date.now) when it answered: BlockedWrite.startedAt is on the same clock. */
  at: number;
  /** Highest offset assigned so far. */
  head: number;
  subscribers: Record<string, SubscriberCounters>;
  /**
   * CPU this process has used since it started, µs: process.cpuUsage(), user plus system, every
   * thread. Two counters' difference over a window, divided by the events the process handled in
   * it (read in the same reply), is its CPU per event (the bench's cpu.microsPerEvent): steadier
   * than throughput on a shared machine. The publisher and our consumers say it too.
   */
  cpuMicros: number;
}

export interface PublisherCounters {
  role: 'publisher';
  published: number;
  done: boolean;
  /** CPU this process has used since it started, µs (as BrokerCounters.cpuMicros). */
  cpuMicros: number;
}

export interface ConsumerCounters {
  role: 'consumer';
  applied: number;
  lastOffset: number;
  endedEarly: string | null;
  /** Between a LAG (or a gap it noticed) and the SYNC_END of the delta. */
  syncing: boolean;
  /** New subscriptions after the broker disconnected it as a slow consumer (see ConsumerReport). */
  reconnects: number;
  /** Offsets it knowingly skipped by resubscribing at `latest` (see ConsumerReport). */
  skippedRanges: Array<[number, number]>;
  /** The stream reached it from this offset on (see ConsumerReport): a late `latest` subscriber missed everything
   * before. */
  coveredAfter: number;
  /** Offsets deltas it asked for gave back so far (see ConsumerReport); absent: none. */
  repairedRanges?: Array<[number, number]>;
  /** Stale right now, and stale time so far, closed spans plus the open one (see ConsumerReport.staleMs); absent: it
   * does not track staleness. */
  stale?: boolean;
  staleMs?: number;
  /**
   * CPU this process has used since it started, µs (as BrokerCounters.cpuMicros); absent from a consumer
   * someone else wrote (docs/CONSUMER.md does not ask for it). A pooled consumer's is its pool's, shared
   * by every member: a figure per consumer divides its pool's (PoolCounters) by their events.
   */
  cpuMicros?: number;
}

export type Counters =
  BrokerCounters | PublisherCounters | ConsumerCounters | RogueCounters | RelayCounters | PoolCounters;

/**
 * The broker's figures for one subscriber name, summed over every subscription
 * of that name: a consumer the broker disconnected and that subscribed again
 * keeps its history. `queued` and `lastAccepted` are its current subscription's.
 */
export interface SubscriberReport extends SubscriberCounters {
  /** Dropped offsets as inclusive [from, to] ranges, ascending and never touching (drops come in runs). */
  droppedRanges: Array<[number, number]>;
  maxQueued: number;
  /** Why its latest subscription ended (null while it is subscribed). */
  endedEarly: string | null;
  /**
   * The offset the broker disconnected it at as a slow consumer, when it has not
   * subscribed again (null otherwise): nothing after it reached this name (as LastWrites.disconnectedAt).
   */
  disconnectedAt: number | null;
  /** Lossy mode under `--overflow disconnect`: times the broker ended its stream with ERROR slowConsumer. */
  disconnects: number;
  /** Resync mode: times the queue overflowed and was replaced by a lag signal + delta. */
  lags: number;
  /** Its last 256 blocked writes, oldest first. */
  blockedWrites: BlockedWrite[];
  /** What happened to this name at the broker and when, oldest first: its first 512 marks (see SubscriberMark). */
  marks: SubscriberMark[];
  /** Marks after those 512, not kept: while it is above 0 the marks stop before the run did (a later `drops ended` may
   * be among them). */
  marksDropped: number;
  /** Resumes the subscriber asked for itself (it saw a gap in offsets). */
  resumes: number;
  /** Bytes and frames of LAG, STATE and SYNC_END sent to bring it back (snapshot at subscribe excluded). */
  resyncBytes: number;
  resyncFrames: number;
  /** What a full snapshot would have cost at each of those recoveries (a resync delta, or a back-fill after a full
   * queue under durable), summed. */
  fullSnapshotBytes: number;
  /**
   * Events discarded from its queue, unsent, because a delta replaces them: on a
   * resync overflow (a LAG) and on every RESUME it asked for. Covered by the
   * delta, not lost; never counted as dropped.
   */
  discarded: number;
  /**
   * Durable mode: events sent to it from the log rather than from its live queue (an offset or
   * earliest start, a RESUME, a back-fill after its queue filled), and their bytes.
   */
  replayedEvents: number;
  replayBytes: number;
  /** Durable mode: times a full live queue switched it to reading the log. */
  backfills: number;
  /** What QUIC did sending to it, summed over its connections (the broker's side of each: where events are resent). */
  transport: TransportStats;
}

/** The QUIC library's own counters for one side of a connection (quiche's stats), summed over connections. */
export interface TransportStats {
  /** Packets sent, packets declared lost, and packets retransmitted. */
  sent: number;
  lost: number;
  retrans: number;
  /** Bytes of stream data sent again. */
  retransBytes: number;
}

/** What a durable broker's log did in this incarnation (BrokerReport.durable). */
export interface DurableReport {
  fsync: FsyncPolicy;
  /** Record bytes this incarnation appended. */
  logBytes: number;
  /** fsync/fdatasync calls this incarnation made. */
  fsyncs: number;
  /** Oldest retained offset (head + 1 when the log is empty). What the log replayed is each subscriber's own
   * (replayedEvents, replayBytes). */
  oldest: number;
}

export interface BrokerReport {
  role: 'broker';
  /** This incarnation's epoch (WELCOME's): kept across a restart only by a durable broker. */
  epoch: number;
  /** What a restart found on disk (null: a first start, or a broker without a log). */
  recovered: { records: number; tornTail: number } | null;
  durable: DurableReport | null;
  head: number;
  subscribers: Record<string, SubscriberReport>;
  /** For each key, the offset of its last write (0: never written): the checker's "explained" needs it. */
  lastWriteOffsets: number[];
  digest: string;
}

/**
 * The broker's answer to a `lastWrites` request: what tells a key that will
 * never arrive from one still on its way, without asking a consumer (a frozen
 * one cannot answer). Sampled a few times per phase over up to 1,000,000 keys,
 * so it is copied out of state the broker keeps current, never computed.
 */
export interface LastWrites {
  /** The highest offset assigned when this was taken: every figure below is as of it. */
  head: number;
  /** Per key, the offset of its last write in the compacted table (0: never written). */
  offsets: Float64Array;
  /** Per subscriber name, every offset the broker dropped for it so far (as SubscriberReport.droppedRanges). */
  dropped: Record<string, Array<[number, number]>>;
  /**
   * Per subscriber name the broker disconnected as a slow consumer and that has
   * not subscribed again: the offset it was disconnected at. No offset after it
   * reaches that name until it subscribes again (and a `latest` subscribe skips them).
   */
  disconnectedAt: Record<string, number>;
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
  /** Time spent waiting on the broker (lossless backpressure, and waiting out a broker restart). */
  blockedMs: number;
  /**
   * The authority holds only changes the broker acknowledged (ACK). These were sent but never
   * acknowledged by a broker that then died, and were not among what the broker it reconnected
   * to already held (its first ACK): never made, so never in the authority. [key, version] each.
   */
  discarded: Array<[number, number]>;
  /** Changes it had acknowledged that the broker it reconnected to no longer held (a crash lost them). */
  acknowledgedLost: number;
  /** Broker connections after the first (after a `brokerLost`). */
  reconnects: number;
  /** Time from losing the broker to being connected again, summed. */
  outageMs: number;
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

/**
 * One subscription of a consumer's life: its first, and each after it lost the broker or was
 * disconnected. Offsets are only comparable within one epoch.
 */
export interface SubscriptionRecord {
  /** Wall-clock ms when its WELCOME arrived. */
  at: number;
  epoch: number;
  /** WELCOME's head. */
  head: number;
  /** The offset it asked to resume after (a checkpoint, or its last offset); null for latest and snapshot starts. */
  from: number | null;
  /** latest / snapshot: how it started; replayed: the broker replayed from `from`; tooOld: refused, so it took a
   * snapshot next. */
  outcome: 'latest' | 'snapshot' | 'replayed' | 'tooOld';
  /** Bytes of frames from WELCOME until its stream first reached WELCOME's head (a snapshot or a replay: what catching
   * up cost). */
  catchUpBytes: number;
  /** When it ended (null: still live): its last offset contiguous from its start, and the highest version applied up to
   * there. */
  lastOffset: number | null;
  lastVersion: number | null;
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
  /** ERROR frames the broker ended its stream with (slowConsumer, or the last one, which ended it early). */
  disconnects: number;
  /** New subscriptions after its first (same name, new QUIC connection): after a slowConsumer ERROR (start `latest`)
   * and after losing the broker (start as its mode says: see `subscriptions`). */
  reconnects: number;
  /**
   * Per reconnect, the offsets it knowingly skipped: [last offset it had + 1,
   * the new WELCOME's head]; empty ranges are left out. What the broker had
   * queued and never sent is also in the broker's droppedRanges.
   */
  skippedRanges: Array<[number, number]>;
  /**
   * Offsets a delta it asked for gave back: [N + 1, S] for a RESUME from N (or a
   * subscribe from offset N) answered by SYNC_END at S. The checker does not count
   * a drop in one as missed. Ours never asks under lossy, so it leaves this out;
   * a foreign consumer that repairs itself reports it (docs/CONSUMER.md).
   */
  repairedRanges?: Array<[number, number]>;
  /** Every subscription it made, oldest first; ours always reports them, a foreign consumer may leave them out. */
  subscriptions?: SubscriptionRecord[];
  /**
   * Keys a snapshot removed from its copy (a snapshot replaces the copy, as a relist does): a
   * broker that lost its memory sends a snapshot without them. [key, version it had] each.
   */
  removedBySnapshot?: Array<[number, number]>;
  /** Durable mode: the checkpoint a restart began from (null: none was found). */
  restoredFrom?: { offset: number; epoch: number; keys: number } | null;
  /**
   * Time it was stale by its own clock: each span from `staleAfterMs` after the broker's last frame
   * to the next frame (or to the report, if it is still stale). A frozen process cannot know while
   * frozen; once thawed, its first frame closes a span covering the stall (the broker WAS silent to
   * it that long). Absent: it does not track staleness (its mode's broker is silent when idle, or a
   * foreign consumer that does not report it).
   */
  staleMs?: number;
  /** Those spans, [from, to] wall-clock ms, oldest first (the last 256). */
  staleSpans?: Array<[number, number]>;
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

/** One direction of a relayed link: datagrams forwarded and dropped, bytes forwarded, and the most held at once for a
 * delay. */
export interface LinkCounters {
  forwarded: number;
  dropped: number;
  bytes: number;
  maxHeld: number;
}

export interface RelayCounters {
  role: 'relay';
  /**
   * up: client to broker; down: broker to client. A TCP relay counts chunks (each read from a
   * socket) where a UDP one counts datagrams; its `dropped` are the chunks a reset discarded.
   */
  up: LinkCounters;
  down: LinkCounters;
  /** A TCP relay's connections and the bytes it held (absent for UDP). */
  stream?: StreamCounters;
  /** Each bandwidth cap (`--bandwidth`) the link was under, in time order: one closed at its end; none without. */
  caps: CapWindow[];
}

/**
 * What one bandwidth cap did, from the relay's own counters over the cap's window (its start to the
 * `shape` that ended it, by the relay's clock), each way. The figures add up: arrived = forwarded +
 * dropped + held at the end. While capped, forwarded ≤ rate × seconds + bucket.
 */
export interface CapWindow {
  /** The cap, bytes a second, and its token bucket (what may leave at once), bytes. */
  rateBytesPerSec: number;
  bucketBytes: number;
  /** What a direction may hold: beyond it UDP drops (drop-tail), TCP stops reading the sender. */
  queueBytes: number;
  /** The window's length by the relay's clock. */
  seconds: number;
  /** Bytes that arrived in the window, with those held when it began. */
  arrivedBytes: ByDirection;
  /** Of them, bytes forwarded within the window. */
  forwardedBytes: ByDirection;
  /** Datagrams dropped because the queue was full (drop-tail), and their bytes; always 0 on TCP. */
  dropped: ByDirection;
  droppedBytes: ByDirection;
  /** The most held at once, and what was held at its end (forwarded at once then, at full speed). */
  maxHeldBytes: ByDirection;
  heldAtEndBytes: ByDirection;
  /** TCP: times a connection's direction stopped reading its sender (the queue full), so TCP pushed back; UDP 0. */
  pauses: ByDirection;
}

/** Bytes each way of a TCP relay (up: client to server; down: server to client). */
export interface ByDirection {
  up: number;
  down: number;
}

/** What a TCP relay (RelayInit.transport `tcp`) did with its connections and the bytes it held. */
export interface StreamCounters {
  /** Client connections accepted, each given its own upstream connection. */
  accepted: number;
  /** Of them, open now. */
  open: number;
  /** Bytes held now (a partition or a delay), each way. */
  heldBytes: ByDirection;
  /** The most held at once, each way. */
  maxHeldBytes: ByDirection;
  /** At each heal of a partition, the bytes it held then (and forwarded, in order), each way. */
  heals: ByDirection[];
  /** Connections destroyed by a reset command, both sides. */
  resetConnections: number;
  /** Bytes held when a reset or a close destroyed their connection: never forwarded. */
  discardedBytes: number;
}

export interface RelayReport extends RelayCounters {
  /** Client addresses it saw (each its own upstream socket): a reconnect is a new one. */
  clients: number;
  /** CPU the process used from its first datagram to the report, µs (its boot excluded): the relay's cost per datagram
   * is this over forwarded + dropped. */
  cpuMicros: number;
}

/**
 * A pool's own figures (its members answer for themselves: a request naming a member gets that
 * consumer's counters or report, exactly as a consumer process of its own would give them).
 */
export interface PoolCounters {
  role: 'pool';
  /** Consumers it hosts. */
  members: number;
  /** Of them, those whose subscription has ended early. */
  ended: number;
  /** Events its members applied, summed: with cpuMicros, in one reply, the pool's CPU per event. */
  applied: number;
  /** CPU this process has used since it started, µs (as BrokerCounters.cpuMicros): every member's share and the
   * process's own. */
  cpuMicros: number;
}

export interface PoolReport extends PoolCounters {
  /** Its members' names, in its init's order. */
  names: string[];
}

export type Report = BrokerReport | PublisherReport | ConsumerReport | RogueReport | RelayReport | PoolReport;

/** What a process cost, as it reports at gather time (process.resourceUsage()). */
export interface ProcessResources {
  /** User + system CPU time since the process started. */
  cpuMs: number;
  /** Peak resident set size. */
  maxRssKb: number;
}
