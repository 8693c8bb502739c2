import type { RunEvent } from '../model/events.js';

type UntimedEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'at'> : never) : never;

/** The run's event log: each phase change, fault and exit, stamped on the run clock. */
export class EventLog {
  readonly events: RunEvent[] = [];

  constructor(private readonly now: () => number) {}

  record(event: UntimedEvent): void {
    this.events.push({ at: this.now(), ...event } as RunEvent);
  }
}
