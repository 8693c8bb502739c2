/**
 * A target system as a value (Jepsen's `dbclient`): everything the harness needs to put one
 * real change-notification system through a fault, and nothing that names another. The
 * orchestrator is meant to hold a list of these (systems.ts) and learn no system's name.
 */

import type { CredentialKind, Credentials } from './credentials.js';

/** Where a server listens, as a client of it is told. */
export interface Endpoint {
  /** The URL the system's own clients take: nats://…, http://… (etcd), redis://…. */
  readonly url: string;
  /** The server's TCP port for clients (whose connections' kernel queues are read). */
  readonly port: number;
  /** Where the server's own counters are read over HTTP, if it has such a place (NATS, etcd). */
  readonly monitorUrl?: string;
  /**
   * What a client must show to be let in, for a server the harness did not start (`--endpoint`);
   * absent for its own servers, which ask for nothing. Never printed: see credentials.ts.
   */
  readonly credentials?: Credentials;
}

/**
 * How to reach a server someone else runs (`--endpoint URL`): the URLs its clients take, and what
 * they can show. The orchestrator checks a URL and the given credentials against it before
 * anything starts.
 */
export interface RemoteRecipe {
  /** URL schemes the clients take, with the colon (`http:`); the first is the usual one. */
  readonly schemes: readonly string[];
  /** Of them, the ones that mean TLS (`https:`, `rediss:`, `tls:`): TLS credentials need one. */
  readonly tlsSchemes: readonly string[];
  /** The clients' port when the URL names none. */
  readonly defaultPort: number;
  /** Whether the URL's path is the clients' (Redis: `/N`, the database); else a path is refused. */
  readonly path?: RegExp;
  /** The credentials its clients can use; any other given is refused. */
  readonly takes: readonly CredentialKind[];
  /** Where its counters are read over HTTP, if it has such a place (read only if it answers). */
  monitorUrl?(url: URL): string | undefined;
}

/** A setting of the system's own that decides a fault's outcome, with the system's default. */
export interface Knob {
  readonly name: string;
  /** What it is, in the system's words, for --help and docs/SYSTEMS.md. */
  readonly description: string;
  /** The system's own default, as the server or client takes it. */
  readonly default: string;
  /** The problem with `value` in one line, or undefined when the system would take it. */
  check(value: string): string | undefined;
  /**
   * Set by the harness's own client (the writer's MAXLEN, the bucket it creates), not by the
   * server's configuration: so it holds against a server someone else runs (`--endpoint`) too.
   */
  readonly client?: true;
}

/** A value for every knob of the system, by name (knobValues fills in the defaults). */
export type KnobValues = Readonly<Record<string, string>>;

/** One key's state as a consumer or the authority holds it: its value and the write that set it. */
export interface Versioned {
  readonly value: string;
  /** The change's sequence number in the system's order (see Writer.write). */
  readonly seq: number;
}

/** Something a consumer was told, or noticed, that is not a change: the evidence of a fault. */
export interface Signal {
  readonly kind: SignalKind;
  /** Wall-clock ms. */
  readonly atMs: number;
  /** The library's or server's own words, when it gave any. */
  readonly detail?: string;
}

export type SignalKind =
  'disconnect' | 'reconnect' | 'cancel' | 'reset' | 'relist' | 'trimmed' | 'error' | 'slow-consumer';

/** Where a consumer idiom puts what it learns. */
export interface Sink {
  /** One change, in the order the consumer received it; `value` null for a delete. */
  apply(key: string, value: string | null, seq: number): void;
  /** A relist: the whole copy becomes `entries` (what the system held at one moment). */
  replace(entries: ReadonlyMap<string, Versioned>): void;
  signal(kind: SignalKind, detail?: string): void;
}

export interface StartedConsumer {
  close(): Promise<void>;
}

/** One way to keep a local copy of the prefix: connect, list or subscribe, feed the sink. */
export type Idiom = (endpoint: Endpoint, prefix: string, sink: Sink) => Promise<StartedConsumer>;

export type IdiomName = 'naive' | 'careful';
export const IDIOM_NAMES: readonly IdiomName[] = ['naive', 'careful'];

/** The publisher's side: one acknowledged write per change. */
export interface Writer {
  /**
   * Writes one change (`value` null deletes the key) and resolves once the system has
   * acknowledged it, with the change's sequence number in the system's order: etcd's revision
   * (the store's commit order is the authority), the KV stream's sequence, or, for systems that
   * keep no order of their own, the writer's own global sequence carried in the message. Null
   * when the system acknowledged a change that changed nothing and has no place in its order
   * (etcd: a delete of an absent key makes no revision and no watch event, and its reply carries
   * the revision of whichever write came last, another key's).
   */
  write(key: string, value: string | null): Promise<number | null>;
  close(): Promise<void>;
}

/** The server's own evidence of a fault, as numbers it reports (NATS /varz, Redis INFO, …). */
export type ServerCounters = Readonly<Record<string, number>>;

/** How to run the system's server as a child process (server-process.ts drives it). */
export interface ServerRecipe {
  /** The executable, found on PATH. */
  readonly binary: string;
  /** How many free loopback ports it needs; the first is the clients' port. */
  readonly ports: number;
  /** Its command line, from its ports, its data directory and the knobs' values. */
  argv(ports: readonly number[], dataDir: string, knobs: KnobValues): string[];
  /** Config files to write into the data directory before it starts (name -> text). */
  files?(ports: readonly number[], dataDir: string, knobs: KnobValues): Record<string, string>;
  /** How its clients reach it, from its ports. */
  endpoint(ports: readonly number[]): Endpoint;
  /** Resolves true once the server answers a client (polled until it does). */
  ready(endpoint: Endpoint): Promise<boolean>;
  /** What survives a restart on the same data directory, in words (docs and reports). */
  readonly persists: string;
}

/**
 * What a stall's edge is predicted from: the run's own figures at one rate (the stall row's
 * acknowledged rate, the bytes the kernel held per second of stall before anything filled, the
 * most it held), and the knobs the run set. The experiment (orchestrator experiments --only
 * systems) measures them; the system says what they predict.
 */
export interface EdgeFigures {
  /** Writes acknowledged per second during the stall. */
  readonly rate: number;
  /** Bytes held for the frozen consumer per second of stall (kernel receive + server send queues), if measured. */
  readonly bytesPerSecond: number | null;
  /** The most bytes the kernel held for a frozen consumer at this rate (its buffers, as far as they filled). */
  readonly bufferBytes: number | null;
  readonly knobs: KnobValues;
}

/** The shortest stall the system's naive idiom should end wrong after, and the limit that decides it. */
export interface EdgePrediction {
  /** Seconds of stall; null when no limit of the system ends a stalled consumer wrong (it waits). */
  readonly seconds: number | null;
  /** The deciding limit and the arithmetic, in words: `MAXLEN ~1000 ÷ 400/s`. */
  readonly limit: string;
}

/** A system's name and knobs alone: what its folder's knobs.ts declares apart from the client (knob-lists.ts). */
export type SystemKnobs = Pick<TargetSystem, 'name' | 'knobs'>;

export interface TargetSystem {
  /** `--system NAME`. */
  readonly name: string;
  /** One line: what it is and how the harness uses it. */
  readonly summary: string;
  /** The Debian package that installs the server. */
  readonly package: string;
  readonly server: ServerRecipe;
  /** How to reach one the harness did not start (`--endpoint`). */
  readonly remote: RemoteRecipe;
  readonly knobs: readonly Knob[];
  /**
   * Creates what the run's namespace needs before any client connects (the KV bucket), once per
   * run; systems whose namespace needs nothing made have none.
   */
  prepare?(endpoint: Endpoint, prefix: string, knobs: KnobValues): Promise<void>;
  /** Connects the publisher's writer; `knobs` for the ones the client applies (a MAXLEN). */
  writer(endpoint: Endpoint, prefix: string, knobs: KnobValues): Promise<Writer>;
  readonly idioms: Readonly<Record<IdiomName, Idiom>>;
  /** The server's own counters; empty when it offers none at this endpoint. */
  counters(endpoint: Endpoint): Promise<ServerCounters>;
  /**
   * What the system holds under `prefix` now, as the careful idiom's relist reads it (etcd's
   * keys, the KV bucket, Redis's keys or hash; core NATS keeps nothing, so the writer's own record
   * it serves). After a server restart this, not the acknowledged writes, is what survived.
   */
  state(endpoint: Endpoint, prefix: string): Promise<Map<string, Versioned>>;
  /** Removes exactly what a run under `prefix` wrote, nothing else. */
  cleanup(endpoint: Endpoint, prefix: string): Promise<void>;
  /**
   * The shortest stall after which the naive idiom should end wrong, from a run's own figures and
   * the knobs, with the limit that decides it (orchestrator experiments --only systems sets it beside
   * the bisected edge). Absent: the system predicts nothing.
   */
  predictEdge?(figures: EdgeFigures): EdgePrediction;
  /** Operator actions a fault may take (etcd: compact the store's history now). */
  readonly actions?: {
    /** Compacts history up to the current revision; resolves with that revision. */
    compact?(endpoint: Endpoint): Promise<number>;
  };
}
