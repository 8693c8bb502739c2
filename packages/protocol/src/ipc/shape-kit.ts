/**
 * The one validator kit for what crosses an IPC channel: our own children's messages
 * (role-shapes.ts, guards.ts) and a foreign consumer's JSON (foreign-contract.ts) are both checked
 * with these. The other side is another process, so nothing it sends is cast: it is checked, field
 * by field. A check returns nothing when the value fits, else a Misfit naming where it does not
 * (its path from a root the caller names: "init.broker.port", "entries[12]") and how. Each contract
 * words a misfit its own way: ours call an absent field missing, the foreign contract says what it
 * expected there.
 */

export interface Misfit {
  /** Where: the caller's root, then `.field` and `[index]` steps ("" as a root: "applied", "entries[3]"). */
  path: string;
  /** What is wrong there, as the end of a sentence: "is not a string", "is empty". */
  wrong: string;
  /** Nothing was there (the value is undefined): a contract may say so in words of its own. */
  absent: boolean;
}

export type Check = (value: unknown, path: string) => Misfit | undefined;

/** A check for each field of T: every key, optional ones included (the compiler sees to it). */
export type Shape<T> = { [K in keyof T]-?: Check };

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
/** A record that is not a list: what JSON calls an object. */
export const isObject = (value: unknown): value is Record<string, unknown> => isRecord(value) && !Array.isArray(value);
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
export const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The misfit of `value` at `path`, which is not `expected`. */
export const misfit = (value: unknown, path: string, expected: string): Misfit => ({
  path,
  wrong: `is not ${expected}`,
  absent: value === undefined,
});

/** A value that passes `test`, else "is not `expected`". */
export const is =
  (test: (value: unknown) => boolean, expected: string): Check =>
  (value, path) =>
    test(value) ? undefined : misfit(value, path, expected);

export const number = is(isNumber, 'a number');
export const count = is(isCount, 'a non-negative integer');
export const text = is((v) => typeof v === 'string', 'a string');
export const flag = is((v) => typeof v === 'boolean', 'true or false');

/** One of `values`, said as `expected` (by default: one of "a", "b"). */
export const oneOf = (values: readonly unknown[], expected = `one of ${quoted(values)}`): Check =>
  is((v) => values.includes(v), expected);

/** Each value as JSON, comma-separated: `"latest", "snapshot"`. */
export const quoted = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

export const nullable =
  (check: Check): Check =>
  (value, path) =>
    value === null ? undefined : check(value, path);

/** For a field marked `?`: absent is fine, present must fit. */
export const optional =
  (check: Check): Check =>
  (value, path) =>
    value === undefined ? undefined : check(value, path);

/** `first`, then (when it fits) `second`: a rule about a value whose shape `first` checked. */
export const both =
  (first: Check, second: Check): Check =>
  (value, path) =>
    first(value, path) ?? second(value, path);

/**
 * By its tag, not `instanceof`: a typed array deserialised from the IPC channel belongs to the
 * realm that read it, which is not this module's under a VM (jest runs the tests in one).
 */
export const typedArray = (tag: string): Check =>
  is((v) => ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === `[object ${tag}]`, `a ${tag}`);

/**
 * Each element; the path is built only for the element that fails (a local copy has up to a
 * million). Not a list: "is not `expected`".
 */
export const listOf =
  (check: Check, expected = 'a list'): Check =>
  (value, path) => {
    if (!Array.isArray(value)) return misfit(value, path, expected);
    for (let i = 0; i < value.length; i++) {
      if (check(value[i], '') !== undefined) return check(value[i], `${path}[${i}]`);
    }
    return undefined;
  };

/** At least one element, each fitting `check`. */
export const nonEmptyListOf =
  (check: Check): Check =>
  (value, path) =>
    listOf(check)(value, path) ??
    (Array.isArray(value) && value.length === 0 ? { path, wrong: 'is empty', absent: false } : undefined);

/** A list of exactly these elements, each by its own check. */
export const tupleOf =
  (...checks: Check[]): Check =>
  (value, path) => {
    if (!Array.isArray(value) || value.length !== checks.length) {
      return misfit(value, path, `a list of ${checks.length}`);
    }
    for (let i = 0; i < checks.length; i++) {
      const found = checks[i]!(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  };

/** `path`'s field `key`: from the empty root, the key alone. */
const fieldPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** An object whose every value fits `check` (a map by name). */
export const recordOf =
  (check: Check): Check =>
  (value, path) => {
    if (!isObject(value)) return misfit(value, path, 'an object');
    for (const [key, entry] of Object.entries(value)) {
      const found = check(entry, fieldPath(path, key));
      if (found !== undefined) return found;
    }
    return undefined;
  };

/** An object with every field of T, each by its check, in the shape's order (the first misfit is named). */
export function fields<T>(shape: Shape<T>): Check {
  const entries = Object.entries<Check>(shape);
  return (value, path) => {
    if (!isObject(value)) return misfit(value, path, 'an object');
    for (const [key, check] of entries) {
      const found = check(value[key], fieldPath(path, key));
      if (found !== undefined) return found;
    }
    return undefined;
  };
}
