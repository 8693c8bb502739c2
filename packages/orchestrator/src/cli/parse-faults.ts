import { UsageError } from '../model/errors.js';
import { DEFAULT_SLOW_PERCENT, describeFault, type Fault, type FaultKind } from '../model/faults.js';

/** The latest a window may end: ten hours (the same bound as --publish-until; timers misbehave past ~24 days). */
const MAX_SECONDS = 36_000;

/** NAME, NAME@FROM-TO, and for --slow also NAME@FROM-TO:PCT (or NAME:PCT). */
const FAULT = /^([^@:\s]+)(?:@(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?))?(?::(\d+))?$/;

const fmt = (seconds: number): string => String(Math.round(seconds * 1000) / 1000);

/**
 * Parses one fault flag's entries (repeatable, comma-separated). A plain NAME
 * keeps the seed's window [d, 3d): frozen for two phases after one converged.
 */
export function parseFaults(kind: FaultKind, entries: ReadonlyArray<string | number>, context: { duration: number; consumers: string[] }): Fault[] {
  const texts = entries.flatMap((entry) => String(entry).split(',')).map((s) => s.trim()).filter(Boolean);
  return texts.map((text) => {
    const match = FAULT.exec(text);
    const usage = `NAME or NAME@FROM-TO (seconds since publishing started${kind === 'slow' ? ', then :PCT for the share of each 100 ms it is stopped' : ''})`;
    if (match === null) throw new UsageError(`--${kind} takes ${usage}, got ${text}`);
    const [, consumer = '', from, to, percent] = match;
    if (!context.consumers.includes(consumer)) throw new UsageError(`--${kind} ${consumer} is not a consumer of this run; valid: ${context.consumers.join(', ')}`);
    if (percent !== undefined && kind !== 'slow') throw new UsageError(`--${kind} takes no :PCT (only --slow does), got ${text}`);
    const fault: Fault = { kind, consumer, from: from === undefined ? context.duration : Number(from), to: to === undefined ? 3 * context.duration : Number(to) };
    if (fault.from >= fault.to) throw new UsageError(`--${kind} ${text}: FROM must be before TO`);
    if (fault.to > MAX_SECONDS) throw new UsageError(`--${kind} ${text}: TO must be at most ${MAX_SECONDS} s (ten hours)`);
    if (kind === 'slow') {
      fault.percent = percent === undefined ? DEFAULT_SLOW_PERCENT : Number(percent);
      if (fault.percent < 1 || fault.percent > 99) throw new UsageError(`--slow ${text}: PCT must be from 1 to 99, got ${fault.percent}`);
    }
    return fault;
  });
}

/**
 * What makes a schedule impossible to judge: one consumer with two faults at
 * once, or every consumer faulted at the same moment (nobody left to compare
 * against). Windows are [from, to): one may start where another ends.
 */
export function checkSchedule(faults: Fault[], consumers: string[]): void {
  for (const [i, a] of faults.entries()) {
    for (const b of faults.slice(i + 1)) {
      if (a.consumer === b.consumer && a.from < b.to && b.from < a.to) {
        throw new UsageError(`${describeFault(a)} overlaps ${describeFault(b)}: one fault at a time per consumer`);
      }
    }
  }
  // The number of faulted consumers only rises at a window's start: check each start.
  for (const start of faults.map((f) => f.from)) {
    const faulted = new Set(faults.filter((f) => f.from <= start && start < f.to).map((f) => f.consumer));
    if (faulted.size === consumers.length) {
      throw new UsageError(`at ${fmt(start)} s every consumer is faulted (${[...faulted].join(', ')}); leave at least one of ${consumers.join(', ')} running to compare against`);
    }
  }
}
