import type { Knob, KnobValues, TargetSystem } from './target-system.js';

/** A knob whose value is a whole number >= `min` (a byte count, a MAXLEN, a history depth). */
export function integerKnob(name: string, description: string, fallback: string, min = 0): Knob {
  return {
    name,
    description,
    default: fallback,
    check: (value) =>
      /^\d+$/.test(value) && Number(value) >= min
        ? undefined
        : `${name} must be a whole number >= ${min}, not "${value}"`,
  };
}

/** A knob the server takes as it is, checked by a pattern (a duration, a limit triple). */
export function patternKnob(name: string, description: string, fallback: string, pattern: RegExp, shape: string): Knob {
  return {
    name,
    description,
    default: fallback,
    check: (value) => (pattern.test(value) ? undefined : `${name} must be ${shape}, not "${value}"`),
  };
}

/**
 * Every knob of `system`, given values first and the system's defaults for the rest. A name the
 * system has no knob for, or a value it would not take, is refused in one line.
 */
export function knobValues(system: TargetSystem, given: KnobValues = {}): KnobValues {
  const values: Record<string, string> = {};
  for (const name of Object.keys(given)) {
    if (!system.knobs.some((knob) => knob.name === name)) {
      const known = system.knobs.map((knob) => knob.name).join(', ') || 'none';
      throw new Error(`${system.name} has no knob ${name} (its knobs: ${known})`);
    }
  }
  for (const knob of system.knobs) {
    const value = given[knob.name] ?? knob.default;
    const problem = knob.check(value);
    if (problem !== undefined) throw new Error(`${system.name}: ${problem}`);
    values[knob.name] = value;
  }
  return values;
}

/** The knob's value; knobValues filled every one in, so a missing one is a programming error. */
export function knob(values: KnobValues, name: string): string {
  const value = values[name];
  if (value === undefined) throw new Error(`no value for knob ${name}: pass the values through knobValues()`);
  return value;
}

/** `knob`, marked as one the harness's client sets (Knob.client): it holds against any server. */
export const clientKnob = (knob: Knob): Knob => ({ ...knob, client: true });
