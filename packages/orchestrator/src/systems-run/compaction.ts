import type { Endpoint, TargetSystem } from '@state-divergence/systems';
import { UsageError } from '../model/errors.js';
import type { SystemCompaction } from './system-document.js';

/**
 * `--compact-at T`: the system's own compact action (etcd: compact the store's history up to
 * the current revision) run T seconds after publishing started. Inside a stall it is the fault
 * that decides etcd: a watcher frozen behind the compacted revision is cancelled at the thaw.
 */

/**
 * The times, checked: each a number of seconds in [0, when publishing ends], sorted. A time past
 * the end would compact after the last write, where it decides nothing.
 */
export function parseCompactAt(values: readonly string[], publishEndsAt: number): number[] {
  const times = values
    .flatMap((value) => value.split(','))
    .map((text) => {
      const at = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(at) || at < 0)
        throw new UsageError(`--compact-at takes seconds since publishing started (a number >= 0), got "${text}"`);
      if (at > publishEndsAt)
        throw new UsageError(`--compact-at ${text} is after publishing ends (at ${publishEndsAt} s)`);
      return at;
    });
  return times.sort((a, b) => a - b);
}

/**
 * Refuses --compact-at when no system of the run has a compact action: with `--system NAME` that
 * system must have one; with `--system all` it runs for the systems that do.
 */
export function checkCompactFor(
  times: readonly number[],
  systems: readonly TargetSystem[],
  every: readonly TargetSystem[],
) {
  if (times.length === 0 || systems.some((system) => system.actions?.compact !== undefined)) return;
  const able = every.filter((system) => system.actions?.compact !== undefined).map((system) => system.name);
  const which = systems.length === 1 ? `${systems[0]!.name} has` : 'no system of this run has';
  throw new UsageError(`--compact-at: ${which} no compact action (${able.join(', ') || 'no system'} has one)`);
}

/**
 * Runs `system`'s compact action at each of `times` (seconds after `startedAt`), one after the
 * other. `results()` waits for every one due to run and gives each: when it ran, and the revision
 * it compacted to or the system's words for why it could not. `cancel()` drops those not yet run.
 */
export function scheduleCompactions(
  system: TargetSystem,
  endpoint: Endpoint,
  times: readonly number[],
  startedAt: number,
) {
  const compact = system.actions?.compact;
  const results: Promise<SystemCompaction>[] = [];
  const timers: NodeJS.Timeout[] = [];
  let previous: Promise<unknown> = Promise.resolve();
  if (compact !== undefined)
    for (const at of times) {
      const done = new Promise<SystemCompaction>((resolve) => {
        timers.push(
          setTimeout(
            () => {
              // After the one before it: two compactions at once would race for the same revision.
              const run = previous.then(async () => {
                const ranAt = Math.round(Date.now() - startedAt) / 1000;
                try {
                  resolve({ at: ranAt, revision: await compact(endpoint), error: null });
                } catch (error) {
                  resolve({ at: ranAt, revision: null, error: error instanceof Error ? error.message : String(error) });
                }
              });
              previous = run;
            },
            Math.max(0, startedAt + at * 1000 - Date.now()),
          ),
        );
      });
      results.push(done);
    }
  let cancelled = false;
  return {
    /** Every compaction's outcome, in time order (none if cancelled first). */
    results: () => (cancelled ? Promise.resolve([]) : Promise.all(results)),
    cancel: () => {
      cancelled = true;
      timers.forEach(clearTimeout);
    },
  };
}
