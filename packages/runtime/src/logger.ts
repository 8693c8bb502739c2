import pino, { type Logger } from 'pino';
import type { LogSettings } from '@state-divergence/protocol';

export type { Logger } from 'pino';

/**
 * One pino logger per process, bound to the process name. Synchronous writes:
 * each line is a single write(2), so lines from several processes appending to
 * one file (O_APPEND) or one pipe never interleave, and the last lines survive
 * process.exit(). Logging is per-second and per-phase, never per event, so the
 * cost of sync writes does not matter.
 */
/**
 * The phase of the run this process is in; every line carries it (pino mixin, so a key never repeats).
 * A log field only: whether the run is ending is the `ending` command's (ChildContext.ending).
 */
let currentPhase: string | undefined;
export function setLogPhase(phase: string): void {
  currentPhase = phase;
}

/** Where a process's lines go (stderr, or the run's log file), opened once: a pool's members share it. */
export type LogDestination = ReturnType<typeof pino.destination>;
export function logDestination(settings: LogSettings): LogDestination {
  return settings.file === null
    ? pino.destination({ fd: 2, sync: true })
    : pino.destination({ dest: settings.file, append: true, sync: true, mkdir: true });
}

/**
 * A logger whose every line says `proc`. A pool gives each consumer it hosts its own (a child
 * logger would repeat the `proc` key), all writing to the pool's one destination.
 */
export function createLogger(
  proc: string,
  settings: LogSettings,
  destination: LogDestination = logDestination(settings),
): Logger {
  return pino(
    {
      level: settings.level,
      base: settings.mode === null ? { proc, pid: process.pid } : { proc, pid: process.pid, mode: settings.mode },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => (currentPhase === undefined ? {} : { phase: currentPhase }),
    },
    destination,
  );
}
