import { MODES, type FsyncPolicy, type LogLevel, type Mode, type OverflowPolicy } from '@state-divergence/protocol';
import type { Fault } from './faults.js';

export const MODE_CHOICES = [...MODES, 'both', 'all'] as const;
/** What the composite choices expand to: both is the seed's two columns, all is every mode (resync and durable too). */
export const EXPANSIONS: Record<string, Mode[]> = { both: ['lossy', 'lossless'], all: [...MODES] };
export type ModeChoice = (typeof MODE_CHOICES)[number];

/** Every default in one place; the CLI's --help reads them from here. */
export const DEFAULTS = {
  rate: 400,
  keys: 2000,
  consumers: 3,
  payload: 64,
  queueCapacity: 512,
  /**
   * The QUIC library's own default (quiche's MAX_DATAGRAM_SIZE): a datagram that
   * fits a real network's ~1,500-byte MTU, so a stall behaves as between hosts.
   */
  datagramSize: 1350,
  /**
   * How long the broker holds a subscriber's events for more before writing them, ms (see
   * BrokerInit.coalesceMs). 25: the smallest hold that merges the publisher's 20 ms ticks, so a
   * subscriber at 400/s gets half as many writes; measured beside 0, 50 and 100 (docs/FINDINGS.md).
   */
  coalesceMs: 25,
  duration: 4,
  mode: 'all' as ModeChoice,
  seed: 1,
  deleteRatio: 0.02,
  rogueFrames: 0,
  overflow: 'drop-new' as OverflowPolicy,
  /** A durable mode's fsync policy (PERIODIC_FSYNC_MS apart under periodic). */
  fsync: 'periodic' as FsyncPolicy,
  tui: true,
  json: false,
  logFile: null as string | null,
  report: null as string | null,
};

/**
 * Most consumers in one run. Hundreds fit 2 cores only pooled (--pool-size): a process of its own
 * costs ~72 MiB and ~9 ms of CPU a second idle.
 */
export const MAX_CONSUMERS = 1024;

/** QUIC's smallest allowed max_udp_payload_size (RFC 9000 §18.2). */
export const MIN_DATAGRAM_SIZE = 1200;
/** quiche never sends a datagram larger than 16,383 bytes, so more buys nothing (measured). */
export const MAX_DATAGRAM_SIZE = 16_384;
/** A second of holding would starve the live view and the stale signal; no measurement needed more. */
export const MAX_COALESCE_MS = 1000;

/** What yargs hands over: flags as typed by the user, not yet checked. */
export interface RawOptions {
  rate?: number;
  keys?: number;
  consumers?: number;
  payload?: number;
  queueCapacity?: number;
  datagramSize?: number;
  coalesceMs?: number;
  duration?: number;
  mode?: string;
  stall?: Array<string | number>;
  slow?: Array<string | number>;
  crash?: Array<string | number>;
  partition?: Array<string | number>;
  loss?: Array<string | number>;
  delay?: Array<string | number>;
  nemesis?: string | undefined;
  staleAfter?: number | undefined;
  idleTimeout?: number | undefined;
  publishUntil?: number | undefined;
  overflow?: string | undefined;
  seed?: number;
  deleteRatio?: number;
  joinLate?: string | undefined;
  rogueFrames?: number;
  consumerCmd?: Array<string | number>;
  readyTimeout?: number | undefined;
  poolSize?: number | undefined;
  tui?: boolean;
  json?: boolean;
  logFile?: string | undefined;
  logLevel?: string | undefined;
  report?: string | undefined;
  fsync?: string | undefined;
  retention?: number | undefined;
  dataDir?: string | undefined;
  keepData?: boolean | undefined;
}

export interface Options {
  rate: number;
  keys: number;
  consumers: number;
  payload: number;
  queueCapacity: number;
  /** Largest UDP payload every QUIC end sends and accepts, bytes. */
  datagramSize: number;
  /** How long the broker holds a subscriber's events for more before writing them, ms: fewer, fuller datagrams for some latency. */
  coalesceMs: number;
  /** Seconds per phase. */
  duration: number;
  mode: ModeChoice;
  modes: Mode[];
  /** Every fault of the run, in time order (the default: the last consumer stalled over [d, 3d)). */
  faults: Fault[];
  /** The consumers with a stall among their faults (the seed's `--stall`). */
  stall: string[];
  /** Where `faults` came from when no person wrote them: drawn by `--nemesis random` from `seed`; null: written (or the seed's default). */
  nemesis: DrawnSchedule | null;
  /** Where the mode's broker speaks when idle (resync, durable): a consumer that hears nothing this long, ms, counts itself stale. */
  staleAfterMs: number;
  /**
   * QUIC's idle timeout at the broker and every client, ms; null: twice the longest stall plus 10 s
   * (run/transport-settings.ts). A partition longer than it kills the connection: the client reconnects.
   */
  idleTimeoutMs: number | null;
  /** Seconds after publishing started when it stops; null: when the last fault ends (the seed's rule). */
  publishUntil: number | null;
  /** Lossy mode: what a full subscriber queue does. */
  overflow: OverflowPolicy;
  seed: number;
  deleteRatio: number;
  /** A consumer that subscribes only when the first fault starts, in the middle of the stream. */
  joinLate: string | null;
  /** Hostile frames a rogue client sends during the run (0: no rogue). */
  rogueFrames: number;
  /** Consumers the orchestrator did not write, run from a command line (--consumer-cmd), in consumer order. */
  consumerCmd: ConsumerCommand[];
  /**
   * How long each process may take to start and say ready, ms; null: 15 s plus half a second
   * per process (booting is CPU-bound, and every process of a mode boots at once).
   */
  readyTimeoutMs: number | null;
  /**
   * Healthy consumers hosted per process (run/pools.ts); 1: one process per consumer. null: the
   * default, decided per run from how many are healthy (run/pools.ts defaultPoolSize).
   */
  poolSize: number | null;
  tui: boolean;
  json: boolean;
  logFile: string | null;
  logLevel: LogLevel;
  /** Write a self-contained HTML report here after the run. */
  report: string | null;
  /** Durable modes: when an append counts as done (protocol's FSYNC_POLICIES). */
  fsync: FsyncPolicy;
  /** Durable modes: most events the log keeps; null: every event the run makes. */
  retention: number | null;
  /**
   * Durable modes: where the logs and checkpoints go (DIR/<mode>/broker, DIR/<mode>/consumers/<name>);
   * null: a fresh temporary directory per run. Either way checked before anything starts (run/data-dir.ts).
   */
  dataDir: string | null;
  /** Leave the data dir in place at the end (and say where it is) instead of removing it. */
  keepData: boolean;
}

/**
 * A schedule `--nemesis random` drew: from which seed, and the fault flags that, given instead of
 * `--nemesis random`, run the same faults (printed on stderr before the run starts).
 */
export interface DrawnSchedule {
  kind: 'random';
  seed: number;
  flags: string;
}

/**
 * A consumer someone else wrote: `command` as given, `argv` as a shell would
 * split it (no shell runs it). It speaks docs/CONSUMER.md's contract.
 */
export interface ConsumerCommand {
  consumer: string;
  command: string;
  argv: string[];
}

export const consumerName = (index: number): string => `consumer-${index + 1}`;
