/** Typed arrays that grow by doubling, up to an optional cap: sample logs and histories. */
type Typed = Float64Array | Uint32Array | Uint8Array;

/** Returns `array`, or a copy twice as long (at most `max`) when `used` has reached its length. */
export function ensureRoom<T extends Typed>(array: T, used: number, max = Number.POSITIVE_INFINITY): T {
  if (used < array.length) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.min(max, array.length * 2));
  grown.set(array);
  return grown;
}
