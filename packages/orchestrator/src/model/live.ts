import type { Mode } from '@state-divergence/protocol';
import type { PhaseName } from './events.js';
import type { Fault, NetworkFaultKind } from './faults.js';

/** What the live view and the plain progress lines are told while a mode runs. */

/** A client under a network fault right now, as its row says it: a partition cuts it off; loss and delay only slow it.
 * */
export const LINK_STATE = {
  partition: 'PARTITIONED',
  loss: 'lossy link',
  delay: 'delayed',
  bandwidth: 'capped',
} as const satisfies Record<NetworkFaultKind, string>;

export type ConsumerState =
  'applying' | 'STALLED' | 'slowed' | 'crashed' | 'resyncing' | 'ended' | (typeof LINK_STATE)[NetworkFaultKind];
export const isLinkState = (state: ConsumerState): boolean =>
  (Object.values(LINK_STATE) as ConsumerState[]).includes(state);

export interface ConsumerLive {
  name: string;
  /** A consumer someone else wrote (--consumer-cmd). */
  foreign: boolean;
  /** Faulted at some point of the run (stalled, slowed, crashed, or its link). */
  faulted: boolean;
  state: ConsumerState;
  applied: number;
  /** Keys whose live version differs from the authority's right now (last known while frozen). */
  wrongNow: number | null;
  /** True when wrongNow is an old figure: the process is frozen and cannot answer. */
  stale: boolean;
  /** Keys whose latest write was dropped or skipped for it: they will never arrive (null: the broker did not answer).
   * */
  diverged: number | null;
  /** Keys whose latest write the broker accepted for it and it has not applied yet: on their way. */
  behind: number | null;
  dropped: number;
  /**
   * What it says of its own link (ConsumerCounters.stale/staleMs): stale right now (no frame from the
   * broker for --stale-after), and its stale time so far. null: it does not track it (its mode's broker
   * is silent when idle, or a foreign consumer that does not say).
   */
  staleness: { now: boolean; ms: number } | null;
  /** wrongNow over the run, one sample per tick. */
  series: number[];
  /** diverged over the run, one sample per tick. */
  divergedSeries: number[];
}

export interface LiveSnapshot {
  mode: Mode;
  phase: PhaseName;
  seconds: number;
  totalSeconds: number;
  /** The run's faults (seconds since publishing started), as the footer states them. */
  faults: Fault[];
  keys: number;
  published: number;
  /** Changes/s over the last two seconds. */
  publisherRate: number;
  /** Keys whose newest change the publisher made but the broker has not accepted yet (lossless backpressure). */
  publisherBacklog: number | null;
  /** The network fault on the publisher's link right now (`--partition publisher@…`); null: none. */
  publisherLink: NetworkFaultKind | null;
  /** The broker is killed and its successor not yet ready (`--crash broker@FROM-TO`): nobody can tell diverged from
   * behind now. */
  brokerDown: boolean;
  consumers: ConsumerLive[];
}

/** Whoever watches a run: the live view, plain progress lines, or nobody (--json). */
export interface RunObserver {
  /** How often the run is sampled for it (the live view wants ~2/s; plain lines 1/s). */
  intervalMs: number;
  phase(mode: Mode, phase: PhaseName, seconds: number): void;
  tick(snapshot: LiveSnapshot): void;
}
