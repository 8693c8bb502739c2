import type { RunEvent } from '../model/events.js';

type UntimedEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'at'> : never) : never;

/** The run's event log: each phase change, fault and exit, stamped on the run clock. */
export class EventLog {
  readonly events: RunEvent[] = [];

  constructor(private readonly now: () => number) {}

  /**
   * Stamps `event` now, or `agoMs` before now: when what it records was seen, if that was earlier
   * than this call (a confirmation's continuation can wait ms behind a busy machine or a GC). In
   * whole tenths, the clock's grid, so a thing seen a few microseconds ago is stamped now.
   */
  record(event: UntimedEvent, agoMs = 0): void {
    const tenthsAgo = Math.floor(agoMs * 10) / 10;
    const at = tenthsAgo === 0 ? this.now() : Math.round((this.now() - tenthsAgo) * 10) / 10;
    this.events.push({ at, ...event } as RunEvent);
  }
}
