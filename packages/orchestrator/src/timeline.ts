/**
 * The plan of one mode's run, Jepsen-style: a workload, a nemesis that
 * starts and stops, and phases each `duration` long. Times are offsets from the
 * run's start in units of one phase.
 */
export const PHASES = [
  { name: 'converged', start: 0 },
  { name: 'stalled', start: 1 },
  { name: 'recovering', start: 3 },
  { name: 'quiesced', start: 4 },
] as const;
export const RUN_LENGTH_IN_PHASES = 5;
/** Publishing runs through converged and stalled, and stops when the stall ends. */
export const PUBLISH_PHASES = 3;
export const STALL = { start: 1, end: 3 } as const;

export type PhaseName = (typeof PHASES)[number]['name'];

/** One thing that happened during a run, on the orchestrator's monotonic clock. */
export type RunEvent =
  | { at: number; type: 'spawned'; name: string; pid: number }
  | { at: number; type: 'phase'; phase: PhaseName }
  | { at: number; type: 'freeze' | 'thaw' | 'joined'; consumer: string; pid: number }
  | { at: number; type: 'publisher-done'; published: number }
  | { at: number; type: 'drained'; ms: number; complete: boolean }
  | { at: number; type: 'consumer-ended'; consumer: string; reason: string };

type UntimedEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'at'> : never) : never;

export class Timeline {
  readonly events: RunEvent[] = [];
  private readonly origin = performance.now();

  /** Milliseconds since the run started. */
  now(): number {
    return Math.round((performance.now() - this.origin) * 10) / 10;
  }

  record(event: UntimedEvent): void {
    this.events.push({ at: this.now(), ...event } as RunEvent);
  }
}
