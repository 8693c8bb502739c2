import { UsageError } from '../model/errors.js';
import { faultEntry, type Fault } from '../model/faults.js';
import type { Options, RawOptions } from '../model/options.js';
import { drawSchedule, type DrawSpace } from './draw-schedule.js';

/** The generators --nemesis knows: one, for now. */
export const NEMESIS_CHOICES = ['random'] as const;
/** The flags that write a schedule by hand: --nemesis random writes them itself. */
export const FAULT_FLAGS = ['stall', 'slow', 'crash', 'partition', 'loss', 'delay', 'bandwidth'] as const;
type FaultFlags = Pick<RawOptions, (typeof FAULT_FLAGS)[number]>;

/** A schedule as the fault flags that write it: what a run given them instead of --nemesis would parse. */
export function asWritten(faults: Fault[]): FaultFlags {
  const flags: FaultFlags = {};
  for (const f of faults) (flags[f.kind] ??= []).push(faultEntry(f));
  return flags;
}

/**
 * Where a drawn fault may lie: inside publishing. Without --publish-until, the seed's stall window
 * [d, 3d) (publishing then ends when the last fault does, as for a written schedule); with it, from one
 * phase in (converged first, as the seed's) to T, or over T's second half when T is under two phases.
 */
export function drawWindow(duration: number, publishUntil: number | null): DrawSpace['window'] {
  if (publishUntil === null) return { from: duration, to: 3 * duration };
  return { from: Math.min(duration, publishUntil / 2), to: publishUntil };
}

/**
 * --nemesis random: the raw flags with the drawn schedule written in as fault flags, --nemesis gone.
 * `normalize` is the written flags' whole validation (normalizeOptions): a drawn fault is kept only if
 * the schedule with it passes, so a drawn schedule is valid by the very rule a written one is. It runs
 * first on one fault that every rule allows (a 50 ms stall at the window's start), so a bad other flag
 * is refused with its own message rather than as "nothing fits".
 */
export function withDrawnFaults(
  raw: RawOptions,
  run: { seed: number; duration: number; consumers: string[]; joinLate: string | null; publishUntil: number | null },
  normalize: (raw: RawOptions) => Options,
): RawOptions {
  if (!(NEMESIS_CHOICES as readonly string[]).includes(String(raw.nemesis)))
    throw new UsageError(
      `--nemesis must be one of ${NEMESIS_CHOICES.join(', ')} (faults drawn from --seed), got ${raw.nemesis}`,
    );
  const written = FAULT_FLAGS.filter((flag) => (raw[flag]?.length ?? 0) > 0);
  if (written.length > 0) {
    throw new UsageError(
      `--nemesis random draws every fault itself: drop ${written.map((f) => `--${f}`).join(', ')} (or drop ` +
        `--nemesis and give the flags it printed, edited)`,
    );
  }
  const { nemesis: _nemesis, ...rest } = raw;
  const space: DrawSpace = {
    seed: run.seed,
    duration: run.duration,
    targets: run.consumers.filter((name) => name !== run.joinLate),
    broker: (raw.consumerCmd?.length ?? 0) === 0,
    window: drawWindow(run.duration, run.publishUntil),
  };
  const from = Math.ceil(space.window.from * 100) / 100;
  normalize({ ...rest, stall: [`${space.targets[0]!}@${from}-${Math.round(from * 100 + 5) / 100}`] });
  const accepts = (faults: Fault[]): boolean => {
    try {
      // The same fault drawn twice would be one fault once parsed (normalizeOptions merges repeats): not a new one.
      return normalize({ ...rest, ...asWritten(faults) }).faults.length === faults.length;
    } catch (error) {
      if (error instanceof UsageError) return false;
      throw error;
    }
  };
  const faults = drawSchedule(space, accepts);
  if (faults.length === 0)
    throw new UsageError(
      `--nemesis random drew no fault that fits ${space.window.from}-${space.window.to} s; give a longer ` +
        `--publish-until`,
    );
  // Parsed and checked whole by the caller as written flags (normalizeOptions), as a person's schedule would be.
  return { ...rest, ...asWritten(faults) };
}

/**
 * A drawn schedule, on stderr before anything starts (stdout may be --json's alone): the flags that,
 * given instead of `--nemesis random`, run the same faults. One line, the flags last, for a script to cut out.
 */
export function announceSchedule(command: string, options: Options): void {
  const { nemesis, faults } = options;
  if (nemesis === null) return;
  process.stderr.write(
    `${command}: --nemesis random --seed ${nemesis.seed} drew ${faults.length} fault` +
      `${faults.length === 1 ? '' : 's'}; to run them again, give instead of --nemesis random: ${nemesis.flags}\n`,
  );
}
