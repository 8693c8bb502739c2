/**
 * mulberry32: a tiny, fast, seedable 32-bit PRNG. Not cryptographic; chosen so
 * the same --seed reproduces the same run on any machine: the publisher's change
 * sequence, the fault relay's drop and jitter draws.
 */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
