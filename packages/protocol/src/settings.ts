import type { FsyncPolicy, OverflowPolicy } from './modes.js';
import { MAX_PAYLOAD_BYTES } from './wire/constants.js';

/**
 * Every numeric setting of a run, declared once: its flag, default, bounds and --help text. The
 * orchestrator's flags (cli/arguments.ts), their checks (cli/normalize-options.ts) and its Options
 * fields are derived from KNOBS; so are the fields of each role's init that carries one (`sentTo`)
 * and the IPC guard's bound on it (ipc/setting-shapes.ts), so a child refuses what the CLI refuses.
 * A new knob is one entry here plus its use.
 */

/**
 * Most consumers in one run. Hundreds fit 2 cores only pooled (--pool-size): a process of its own
 * costs ~72 MiB and ~9 ms of CPU a second idle.
 */
export const MAX_CONSUMERS = 1024;
/** QUIC's smallest allowed max_udp_payload_size (RFC 9000 §18.2). */
export const MIN_DATAGRAM_SIZE = 1200;
/** quiche never sends a datagram larger than 16,383 bytes, so more buys nothing (measured). */
export const MAX_DATAGRAM_SIZE = 16_384;
/**
 * A second of holding would starve the live view and the stale signal; no measurement needed more.
 */
export const MAX_COALESCE_MS = 1000;
/**
 * The latest a fault window may end and publishing may stop: ten hours (timers misbehave past ~24
 * days).
 */
export const MAX_RUN_SECONDS = 36_000;

/**
 * Most events the broker puts in one QUIC write to one subscriber (and in one page of a back-fill).
 * Above the default queue (512), so a writer that fell behind takes everything queued in its next
 * write: at the seed's firehose (20,000/s arriving in 400-event publisher ticks) 256 left the queue
 * overflowing behind two writes per tick (measured, alternated, load 4-7: healthy drops 16.5 k and
 * 20.6 k at 256, 4.3 k and 6.5 k at 1,024, the same CPU per event).
 */
export const BATCH_MAX_EVENTS = 1024;
/**
 * Per-stream receive window at the broker (~600 events of 64 bytes). Small, so
 * that when the broker stops reading (lossless) the publisher feels it within
 * a second or two at 400/s; not smaller, because this library's window updates
 * lag and a 16 KiB window throttled even a broker that was reading (measured:
 * healthy p50 36 ms vs 10 ms).
 */
export const STREAM_WINDOW_BYTES = 64 * 1024;
export const HEARTBEAT_MS = 250;
/**
 * A consumer whose mode's broker speaks even when idle (PROGRESS every HEARTBEAT_MS) counts itself
 * stale after this long without a frame: three missed heartbeats (`--stale-after` changes it).
 */
export const DEFAULT_STALE_AFTER_MS = 3 * HEARTBEAT_MS;

/**
 * QUIC's idle timeout when --idle-timeout is not given: a frozen consumer's connection must outlive
 * its stall, or it dies instead of lagging (which would measure something else); margin for the
 * drain after it. Partitions do not raise it: one longer than it is meant to kill the connection.
 */
export const defaultIdleTimeoutMs = (longestStallMs: number): number => Math.ceil(longestStallMs * 2 + 10_000);

/**
 * How long each process may take to start and say ready when --ready-timeout is not given: every
 * process boots at once and booting is CPU-bound (on 2 cores fifty of them take ~15 s), so 15 s
 * plus half a second per process.
 */
export const defaultReadyTimeoutMs = (processes: number): number => 15_000 + 500 * processes;

/** The roles whose init carries a knob under its own name (see `sentTo`). */
export type KnobRole = 'broker' | 'publisher' | 'rogue' | 'relay';

/** One numeric setting. Bounds are inclusive and in the flag's unit. */
export interface Knob {
  /** Its flag (kebab-case); yargs hands it over camel-cased (the orchestrator's RawOptions). */
  readonly flag: string;
  /** Its value when the flag is not given; null: decided per run, as `describe` says. */
  readonly default: number | null;
  /**
   * --help gives the default in words (in `describe`) and yargs is not told it, so an absent flag
   * stays absent: the orchestrator refuses it given where it cannot matter.
   */
  readonly describedDefault?: true;
  readonly integer: boolean;
  readonly min: number;
  readonly max: number;
  /** The flag takes seconds, every process milliseconds (the value times 1000, rounded). */
  readonly seconds?: true;
  /**
   * The guard's maximum, where a child is sent a value resolved from more than the flag (a
   * default computed per run) that can exceed the flag's own `max`.
   */
  readonly resolvedMax?: number;
  /**
   * How a refusal says what is allowed: `--flag must be <what>, got V` [default: an integer from
   * min to max].
   */
  readonly what?: string;
  readonly describe: string;
  /** The roles whose init carries it under the knob's name, checked by this knob's bounds. */
  readonly sentTo?: readonly KnobRole[];
}

export const KNOBS = {
  rate: {
    flag: 'rate',
    default: 400,
    integer: false,
    min: 0.1,
    max: 100_000,
    sentTo: ['publisher'],
    what: 'a positive number of changes per second (at most 100000)',
    describe: 'Changes published per second',
  },
  /** Keyspace size (the broker's per-key report and the publisher's workload). */
  keys: {
    flag: 'keys',
    default: 2000,
    integer: true,
    min: 1,
    max: 1_000_000,
    sentTo: ['broker', 'publisher'],
    describe: 'Size of the config keyspace',
  },
  consumers: {
    flag: 'consumers',
    default: 3,
    integer: true,
    min: 2,
    max: MAX_CONSUMERS,
    what: `at least 2 (and at most ${MAX_CONSUMERS})`,
    describe: `Consumer count; must be at least 2 (at most ${MAX_CONSUMERS})`,
  },
  /**
   * Healthy consumers hosted per process (run/pools.ts); 1: one process per consumer. null: the
   * default, decided per run from how many are healthy (run/pools.ts defaultPoolSize).
   */
  poolSize: {
    flag: 'pool-size',
    default: null,
    integer: true,
    min: 1,
    max: MAX_CONSUMERS,
    what: `a whole number of consumers per process from 1 (a process each) to ${MAX_CONSUMERS}`,
    describe:
      'Healthy consumers hosted per process, each with its own connection, copy and verdict ' +
      '(a faulted, late or --consumer-cmd consumer always runs alone); 1: a process each ' +
      '[default: one pool per core but one, left to the broker: on 2 cores, one pool]',
  },
  payload: {
    flag: 'payload',
    default: 64,
    integer: true,
    min: 0,
    max: MAX_PAYLOAD_BYTES,
    sentTo: ['publisher'],
    describe: 'Payload bytes per change',
  },
  /**
   * Most events queued for one subscriber at the broker; what a full queue does is the mode's queue
   * policy.
   */
  queueCapacity: {
    flag: 'queue-capacity',
    default: 512,
    integer: true,
    min: 1,
    max: 1_000_000,
    sentTo: ['broker'],
    describe: 'Subscriber queue depth at the broker',
  },
  /**
   * Largest UDP payload every QUIC end sends and accepts, bytes (each init's `datagramBytes`). The
   * default is the QUIC library's own (quiche's MAX_DATAGRAM_SIZE): a datagram that fits a real
   * network's ~1,500-byte MTU, so a stall behaves as between hosts.
   */
  datagramSize: {
    flag: 'datagram-size',
    default: 1350,
    integer: true,
    min: MIN_DATAGRAM_SIZE,
    max: MAX_DATAGRAM_SIZE,
    describe:
      `Largest QUIC datagram, ${MIN_DATAGRAM_SIZE}-${MAX_DATAGRAM_SIZE} bytes. ` +
      'Above ~1,450 it exists only on loopback: faster (the cost is per datagram), ' +
      "and a frozen consumer's transport absorbs ~12x more before the broker's queue fills",
  },
  /**
   * How long the broker holds a subscriber's events for more before writing them, ms. 0 by default:
   * no hold, only the group commit (subscriber/writer.ts): an idle writer writes on this turn's end,
   * a busy one sends everything that queued behind its write in flight. A hold of 25 merges two of
   * the publisher's 20 ms ticks at 400/s; measured beside 0 in the same bench run (`cpu.holdAB`), it
   * saves the consumers some CPU at that rate and costs ~20 ms of latency (docs/FINDINGS.md).
   */
  coalesceMs: {
    flag: 'coalesce-ms',
    default: 0,
    integer: true,
    min: 0,
    max: MAX_COALESCE_MS,
    sentTo: ['broker'],
    what: `a whole number of ms from 0 to ${MAX_COALESCE_MS}`,
    describe:
      "How long the broker holds a subscriber's events for more before writing them, " +
      `0-${MAX_COALESCE_MS} ms (0: no hold; events that queue while a write is in flight go out together ` +
      'when it completes). A hold sends fewer, fuller datagrams at a low rate (the cost is per datagram) ' +
      'and adds up to this much latency',
  },
  /** Seconds per phase. */
  duration: {
    flag: 'duration',
    default: 4,
    integer: false,
    min: 0.2,
    max: 600,
    what: 'a number of seconds from 0.2 to 600',
    describe: 'Seconds per phase; a run is 5 phases',
  },
  /**
   * Where the mode's broker speaks when idle (resync, durable): a consumer that hears nothing this
   * long, ms, counts itself stale.
   */
  staleAfterMs: {
    flag: 'stale-after',
    default: DEFAULT_STALE_AFTER_MS,
    describedDefault: true,
    integer: true,
    min: 1,
    max: 60_000,
    what: 'a whole number of ms from 1 to 60000',
    describe:
      'Resync, durable: a consumer that hears nothing from the broker this long (ms, 1-60000) ' +
      `counts itself stale [default: three heartbeats, ${DEFAULT_STALE_AFTER_MS}]`,
  },
  /**
   * QUIC's idle timeout at the broker and every client, ms; null: twice the longest stall plus 10 s
   * (defaultIdleTimeoutMs). A partition longer than it kills the connection: the client reconnects.
   */
  idleTimeoutMs: {
    flag: 'idle-timeout',
    default: null,
    integer: false,
    min: 1,
    max: 3600,
    seconds: true,
    sentTo: ['broker'],
    // The default follows the longest stall, whose window may end as late as MAX_RUN_SECONDS.
    resolvedMax: defaultIdleTimeoutMs(MAX_RUN_SECONDS * 1000) / 1000,
    what: 'a number of seconds from 1 to 3600',
    describe:
      'QUIC idle timeout, seconds: a partition longer than it kills the connection and the ' +
      'client reconnects; must outlast the longest stall [default: 2 x the longest stall + 10]',
  },
  /**
   * Seconds after publishing started when it stops; null: when the last fault ends (the seed's
   * rule).
   */
  publishUntil: {
    flag: 'publish-until',
    default: null,
    integer: false,
    min: 0.1,
    max: MAX_RUN_SECONDS,
    what: 'a number of seconds after publishing starts (more than 0)',
    describe:
      'Keep publishing until T seconds (so changes go on after the faults and churn can repair) ' +
      '[default: when the last fault ends]',
  },
  seed: {
    flag: 'seed',
    default: 1,
    integer: true,
    min: 0,
    max: 0xffff_ffff,
    sentTo: ['publisher', 'rogue', 'relay'],
    describe: 'PRNG seed: the same seed gives the same changes (and with --nemesis random the same faults)',
  },
  /** Fraction of changes that delete their key. */
  deleteRatio: {
    flag: 'delete-ratio',
    default: 0.02,
    integer: false,
    min: 0,
    max: 1,
    sentTo: ['publisher'],
    what: 'a fraction from 0 to 1',
    describe: 'Fraction of changes that delete their key',
  },
  /** Hostile frames a rogue client sends during the run (0: no rogue). */
  rogueFrames: {
    flag: 'rogue-frames',
    default: 0,
    integer: true,
    min: 0,
    max: 1_000_000,
    sentTo: ['rogue'],
    describe:
      'A hostile client sends this many bad frames during the run ' +
      '(wrong pin, wrong token, garbage); the outcome must not change',
  },
  /**
   * How long each process may take to start and say ready, ms; null: 15 s plus half a second
   * per process (defaultReadyTimeoutMs).
   */
  readyTimeoutMs: {
    flag: 'ready-timeout',
    default: null,
    integer: false,
    min: 1,
    max: 600,
    seconds: true,
    what: 'a number of seconds from 1 to 600',
    describe:
      'Seconds each process may take to start and say ready before it counts as stuck ' +
      '(a foreign consumer that never says ready is then left out) [default: 15 + 0.5 per process]',
  },
  /** Durable modes: most events the log keeps; null: every event the run makes. */
  retention: {
    flag: 'retention',
    default: null,
    integer: true,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    what: 'a whole number of events, at least 1',
    describe: 'Durable mode: most events the log keeps, at least 1 [default: every event of the run]',
  },
} as const satisfies Record<string, Knob>;

type Table = typeof KNOBS;
export type KnobName = keyof Table;

/**
 * Each knob's value as every process is sent it: resolved, a number (in ms where the flag takes
 * seconds).
 */
export type Settings = { -readonly [K in KnobName]: number };
/**
 * Each knob's value as the run's options hold it: null where its default is decided per run (or
 * means "none").
 */
export type KnobOptions = {
  -readonly [K in KnobName]: Table[K]['default'] extends number ? number : number | null;
};

type SentTo<K extends KnobName> = Table[K] extends { readonly sentTo: readonly (infer R)[] } ? R : never;
/** The knobs whose values `role`'s init carries. */
export type KnobsOf<R extends KnobRole> = {
  [K in KnobName]: R extends SentTo<K> ? K : never;
}[KnobName];

/** Every knob, in --help order. */
export const KNOB_NAMES = Object.keys(KNOBS) as KnobName[];

export const knob = (name: KnobName): Knob => KNOBS[name];

/** The knobs whose values `role`'s init carries, in table order. */
export const knobsOf = <R extends KnobRole>(role: R): Array<KnobsOf<R>> =>
  KNOB_NAMES.filter((name) => (knob(name).sentTo ?? []).includes(role)) as Array<KnobsOf<R>>;

/** Exactly the values `role`'s init carries, copied from settings that may hold more. */
export function settingsOf<R extends KnobRole>(role: R, from: Pick<Settings, KnobsOf<R>>): Pick<Settings, KnobsOf<R>> {
  // Only the table's own names are copied: the caller's object may hold anything else (never sent).
  const values = knobsOf(role).map((name) => [name, from[name]]);
  return Object.fromEntries(values) as Pick<Settings, KnobsOf<R>>;
}

/** Every knob's default (null: decided per run). */
export const KNOB_DEFAULTS = Object.fromEntries(KNOB_NAMES.map((name) => [name, knob(name).default])) as KnobOptions;

/**
 * Every default of a run in one place: the knobs', then the choices' and the output's. --help reads
 * them from here.
 */
export const DEFAULTS = {
  ...KNOB_DEFAULTS,
  mode: 'all' as const,
  overflow: 'drop-new' as OverflowPolicy,
  /** A durable mode's fsync policy (PERIODIC_FSYNC_MS apart under periodic). */
  fsync: 'periodic' as FsyncPolicy,
  tui: true,
  json: false,
  logFile: null as string | null,
  report: null as string | null,
};
