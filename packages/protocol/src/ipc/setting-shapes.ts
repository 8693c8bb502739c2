import { knob, knobsOf, type KnobName, type KnobRole, type KnobsOf } from '../settings.js';
import { both, count, is, number, type Check } from './shape-kit.js';

/**
 * The IPC guard's check of a value set by a knob (settings.ts): the knob's own bounds, in the
 * unit a process is sent (ms where the flag takes seconds), so a child refuses what the CLI
 * refuses. A value of the wrong type is named as before ("is not a non-negative integer").
 */
export function settingCheck(name: KnobName): Check {
  const { integer, min, max, seconds, resolvedMax } = knob(name);
  const scale = seconds ? 1000 : 1;
  const [low, high] = [min * scale, (resolvedMax ?? max) * scale];
  // Seconds become whole milliseconds on the way (normalize-options.ts rounds them).
  const whole = integer || seconds === true;
  const expected = `${whole ? 'an integer' : 'a number'} from ${low} to ${high}`;
  const within = is((v) => (v as number) >= low && (v as number) <= high, expected);
  return both(whole ? count : number, within);
}

/** The checks of every knob `role`'s init carries, by field (its shape spreads them in). */
export const settingShapes = <R extends KnobRole>(role: R): { [K in KnobsOf<R>]: Check } =>
  Object.fromEntries(knobsOf(role).map((name) => [name, settingCheck(name)])) as {
    [K in KnobsOf<R>]: Check;
  };
