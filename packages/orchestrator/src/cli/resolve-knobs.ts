import { KNOB_NAMES, knob, type KnobName, type KnobOptions } from '@state-divergence/protocol';
import { UsageError } from '../model/errors.js';
import type { RawOptions } from '../model/options.js';

/** A knob's flag as yargs hands it over: `queue-capacity` is `queueCapacity`. */
export const rawName = (name: KnobName): keyof RawOptions =>
  knob(name).flag.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase()) as keyof RawOptions;

/**
 * One knob's flag, checked against the knob's bounds (in the flag's unit), then in the unit a
 * process is sent.
 */
function resolveKnob(name: KnobName, given: unknown): number | null {
  const { flag, integer, min, max, seconds, what } = knob(name);
  if (given === undefined) return knob(name).default;
  const value = Number(given);
  const whole = !integer || Number.isInteger(value);
  if (!Number.isFinite(value) || !whole || value < min || value > max) {
    const allowed = what ?? `an integer from ${min} to ${max}`;
    const got = Number.isNaN(value) ? 'not a number' : value;
    throw new UsageError(`--${flag} must be ${allowed}, got ${got}`);
  }
  // The flag takes seconds, every process whole milliseconds.
  return seconds ? Math.round(1000 * value) : value;
}

/**
 * Every knob of protocol's settings.ts, each checked against its bounds and defaulted, in table
 * order: the rules between flags (an idle timeout that must outlast the longest stall, a flag that
 * matters only in some mode) are normalizeOptions's.
 */
export function resolveKnobs(raw: RawOptions): KnobOptions {
  const values = KNOB_NAMES.map((name) => [name, resolveKnob(name, raw[rawName(name)])]);
  return Object.fromEntries(values) as KnobOptions;
}
