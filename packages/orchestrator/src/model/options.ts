import {
  MODES,
  type FsyncPolicy,
  type KnobName,
  type KnobOptions,
  type KNOBS,
  type LogLevel,
  type Mode,
  type OverflowPolicy,
} from '@state-divergence/protocol';
import type { Fault } from './faults.js';

export const MODE_CHOICES = [...MODES, 'both', 'all'] as const;
/** What the composite choices expand to: both is the seed's two columns, all is every mode (resync and durable too). */
export const EXPANSIONS: Record<string, Mode[]> = { both: ['lossy', 'lossless'], all: [...MODES] };
export type ModeChoice = (typeof MODE_CHOICES)[number];

/** Every default in one place (protocol's settings.ts); the CLI's --help reads them from there. */
export { DEFAULTS } from '@state-divergence/protocol';

/** kebab-case to camelCase, as yargs hands a flag over: `queue-capacity` is `queueCapacity`. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
/** Each knob's flag as yargs hands it over, by the flag's camel-cased name (`--stale-after`: staleAfter). */
type RawKnobs = { [K in KnobName as CamelCase<(typeof KNOBS)[K]['flag']>]?: number | undefined };

/** What yargs hands over: flags as typed by the user, not yet checked. */
export interface RawOptions extends RawKnobs {
  mode?: string;
  stall?: Array<string | number>;
  slow?: Array<string | number>;
  crash?: Array<string | number>;
  partition?: Array<string | number>;
  loss?: Array<string | number>;
  delay?: Array<string | number>;
  bandwidth?: Array<string | number>;
  nemesis?: string | undefined;
  overflow?: string | undefined;
  joinLate?: string | undefined;
  consumerCmd?: Array<string | number>;
  tui?: boolean;
  json?: boolean;
  logFile?: string | undefined;
  logLevel?: string | undefined;
  report?: string | undefined;
  fsync?: string | undefined;
  dataDir?: string | undefined;
  keepData?: boolean | undefined;
}

/** A run, checked: its knobs (protocol's settings.ts, each documented there), then everything else. */
export interface Options extends KnobOptions {
  mode: ModeChoice;
  modes: Mode[];
  /** Every fault of the run, in time order (the default: the last consumer stalled over [d, 3d)). */
  faults: Fault[];
  /** The consumers with a stall among their faults (the seed's `--stall`). */
  stall: string[];
  /** Where `faults` came from when no person wrote them: drawn by `--nemesis random` from `seed`; null: written (or the
   * seed's default). */
  nemesis: DrawnSchedule | null;
  /** Lossy mode: what a full subscriber queue does. */
  overflow: OverflowPolicy;
  /** A consumer that subscribes only when the first fault starts, in the middle of the stream. */
  joinLate: string | null;
  /** Consumers the orchestrator did not write, run from a command line (--consumer-cmd), in consumer order. */
  consumerCmd: ConsumerCommand[];
  tui: boolean;
  json: boolean;
  logFile: string | null;
  logLevel: LogLevel;
  /** Write a self-contained HTML report here after the run. */
  report: string | null;
  /** Durable modes: when an append counts as done (protocol's FSYNC_POLICIES). */
  fsync: FsyncPolicy;
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
