import type { ChildHandle, ChildRegistry, RunObserver } from '@state-divergence/orchestrator';
import type { Counters } from '@state-divergence/protocol';

/** CPU per event of each role over one run's steady window, µs (see CpuWindow). */
export interface CpuPerEvent {
  /** Per event delivered to a subscriber (an event sent to three subscribers counts three). */
  broker: number;
  /** Per event applied, over the consumers never faulted (their processes' CPU over their events). */
  consumer: number;
  /** Per change published. */
  publisher: number;
}

const REPLY_MS = 2_000;

interface Sample {
  cpuMicros: number;
  events: number;
  pid: number;
}

/**
 * The window: from the end of the first phase (every consumer subscribed, the start-up and the first
 * phase's warm-up behind) to the end of the stall (when publishing stops, by the seed's rule). At
 * each end every process says its counters (its cpuMicros and its events, in one reply, so the IPC
 * round trip does not skew the ratio). Consumers faulted by the plan are left out (a frozen one
 * cannot answer, and its catch-up is not steady); a pool answers for its members (all healthy), with
 * its process's CPU and their events.
 */
export class CpuWindow {
  readonly registry: ChildRegistry = new Set();
  private readonly ends: Array<Promise<Map<string, Sample>>> = [];

  constructor(private readonly faulted: ReadonlySet<string>) {}

  /** Samples at the phase changes; otherwise silent, as the bench's runs are. */
  readonly observer: RunObserver = {
    intervalMs: 1000,
    tick: () => {},
    phase: (_mode, phase) => {
      if (phase === 'stalled' || phase === 'recovering') this.ends.push(this.sample());
    },
  };

  /** µs per event over the window; null when the run had no such window (no fault, or a process did not answer). */
  async perEvent(): Promise<CpuPerEvent | null> {
    if (this.ends.length < 2) return null;
    const [from, to] = await Promise.all(this.ends.slice(0, 2));
    const role = (name: (key: string) => boolean) =>
      perEventOf(
        [...to!].filter(([key]) => name(key)),
        from!,
      );
    const broker = role((key) => key === 'broker');
    const consumer = role((key) => key.startsWith('consumer:'));
    const publisher = role((key) => key === 'publisher');
    return broker === null || consumer === null || publisher === null ? null : { broker, consumer, publisher };
  }

  private async sample(): Promise<Map<string, Sample>> {
    // A pool hosts healthy consumers only (a faulted one always runs alone): it answers for all of them.
    const consumerSide = (child: ChildHandle) =>
      (child.role === 'consumer' && !this.faulted.has(child.name)) || child.role === 'pool';
    const wanted = [...this.registry].filter(
      (child) => child.alive && (child.role === 'broker' || child.role === 'publisher' || consumerSide(child)),
    );
    const samples = new Map<string, Sample>();
    await Promise.all(
      wanted.map(async (child: ChildHandle) => {
        const counters = await child.status(REPLY_MS).catch(() => undefined);
        const sample = counters && sampleOf(counters, child.pid);
        if (sample) samples.set(consumerSide(child) ? `consumer:${child.name}` : child.role, sample);
      }),
    );
    return samples;
  }
}

function sampleOf(counters: Counters, pid: number): Sample | undefined {
  switch (counters.role) {
    case 'broker':
      return {
        cpuMicros: counters.cpuMicros,
        events: Object.values(counters.subscribers).reduce((sum, s) => sum + s.delivered, 0),
        pid,
      };
    case 'publisher':
      return { cpuMicros: counters.cpuMicros, events: counters.published, pid };
    case 'consumer':
      return counters.cpuMicros === undefined
        ? undefined
        : { cpuMicros: counters.cpuMicros, events: counters.applied, pid };
    case 'pool':
      return { cpuMicros: counters.cpuMicros, events: counters.applied, pid };
    default:
      return undefined;
  }
}

/** Σ CPU of the distinct processes ÷ Σ events, between two samples of the same names. */
function perEventOf(ends: Array<[string, Sample]>, from: Map<string, Sample>): number | null {
  const cpu = new Map<number, number>();
  let events = 0;
  for (const [key, end] of ends) {
    const start = from.get(key);
    if (start === undefined || start.pid !== end.pid) continue;
    events += end.events - start.events;
    cpu.set(end.pid, end.cpuMicros - start.cpuMicros);
  }
  if (events <= 0) return null;
  return [...cpu.values()].reduce((a, b) => a + b, 0) / events;
}
