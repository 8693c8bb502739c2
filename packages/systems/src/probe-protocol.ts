import type { Endpoint, IdiomName, Signal } from './target-system.js';

/** What the parent tells a probe consumer (probe-consumer.ts) over IPC. */
export type ProbeCommand =
  | { type: 'start'; system: string; idiom: IdiomName; endpoint: Endpoint; prefix: string }
  | { type: 'report' }
  | { type: 'stop' };

/** A probe's local copy and what it received, as it stands when asked. */
export interface ProbeReport {
  readonly entries: [string, string, number][];
  /** How many changes it applied, and the highest seq among them. */
  readonly applied: number;
  readonly highestSeq: number;
  /**
   * Every seq it applied, in the order it applied them (LocalCopy.applied): the checker's
   * evidence of what reached it, and whether a key's writes arrived in order.
   */
  readonly appliedSeqs: number[];
  /** When each of appliedSeqs was applied, wall-clock ms (LocalCopy.appliedAtMs). */
  readonly appliedAtMs: number[];
  readonly relists: number;
  readonly signals: Signal[];
}

export type ProbeMessage =
  { type: 'started' } | { type: 'failed'; message: string } | ({ type: 'report' } & ProbeReport);
