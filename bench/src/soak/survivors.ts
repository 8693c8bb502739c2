import { setTimeout as sleep } from 'node:timers/promises';
import { aliveAs, allProcesses, identity, readCommand, type ProcStat } from './proc.js';

/** A process of the run still alive after the run ended: a leak. */
export interface Survivor {
  pid: number;
  /** /proc's state letter when it was found: `T` is a process left SIGSTOPped. */
  state: string;
  name: string;
  command: string;
}

/**
 * The run's processes still alive `graceMs` after its orchestrator exited: every process the
 * sampler saw, and anything now in a process group one of them led (a child the sampler never
 * caught, reparented away once its parent died). A zombie is not alive; a stopped one is.
 * Returns as soon as none is left, and how long the last took to go.
 */
export async function survivorsOf(
  seen: Iterable<ProcStat>,
  nameOf: (pid: number) => string,
  graceMs: number,
): Promise<{ survivors: Survivor[]; lastGoneMs: number }> {
  const known = [...seen];
  const groups = new Set(known.map((p) => p.pid));
  const started = performance.now();
  for (;;) {
    const candidates = new Map<string, ProcStat>();
    for (const p of known) candidates.set(identity(p), p);
    for (const p of allProcesses()) if (groups.has(p.pgid) && p.pid !== process.pid) candidates.set(identity(p), p);
    const alive = [...candidates.values()].flatMap((p) => {
      const now = aliveAs(p);
      return now === null ? [] : [now];
    });
    const waited = performance.now() - started;
    if (alive.length === 0) return { survivors: [], lastGoneMs: Math.round(waited) };
    if (waited >= graceMs) {
      return {
        survivors: alive.map((p) => ({ pid: p.pid, state: p.state, name: nameOf(p.pid), command: readCommand(p.pid) })),
        lastGoneMs: Math.round(waited),
      };
    }
    await sleep(50);
  }
}

/** The soak's own clean-up of a leak it found: SIGCONT (a stopped process cannot die of SIGTERM's handler, nor run one)
 * then SIGKILL, by pid. */
export function reap(survivors: Survivor[]): void {
  for (const { pid } of survivors) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }
}
