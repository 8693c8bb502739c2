/**
 * An order-independent digest of a keyspace: over every live key, the sum
 * (mod 2^32) of two independent 32-bit mixes of (key, version). Sums make it
 * incremental - adding or removing one pair is O(1) - so the broker keeps its
 * digest current on every change, and two states with the same live
 * (key, version) pairs have the same digest whatever order they were built in.
 * Versions are global and unique, so equal pairs imply equal values.
 * Not cryptographic: it detects divergence, it does not resist forgery.
 * docs/PROTOCOL.md specifies it step by step with a worked example; change both together.
 */

/** Seeds the mix for the digest's high word and its low word. */
export const DIGEST_SEED_HIGH = 0x9e37_79b9;
export const DIGEST_SEED_LOW = 0x7f4a_7c15;

/**
 * One 32-bit mix of (key, version) under `seed`: murmur3-style multiply and
 * xor-shift rounds. Every step is u32 arithmetic (Math.imul is multiplication
 * mod 2^32, `>>>` a logical shift); the 53-bit version enters as two words,
 * its low 32 bits in the second round and its high 21 bits in the third.
 */
export function digestMix(key: number, version: number, seed: number): number {
  const high = Math.floor(version / 0x1_0000_0000);
  let h = seed ^ key;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (version >>> 0) ^ (h >>> 13), 0xc2b2_ae35);
  h = Math.imul(h ^ high ^ (h >>> 16), 0x27d4_eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x1656_67b1);
  return (h ^ (h >>> 16)) >>> 0;
}

export class StateDigest {
  private high = 0;
  private low = 0;
  /** Live keys counted in the digest. */
  size = 0;

  add(key: number, version: number): void {
    this.high = (this.high + digestMix(key, version, DIGEST_SEED_HIGH)) >>> 0;
    this.low = (this.low + digestMix(key, version, DIGEST_SEED_LOW)) >>> 0;
    this.size += 1;
  }

  remove(key: number, version: number): void {
    this.high = (this.high - digestMix(key, version, DIGEST_SEED_HIGH)) >>> 0;
    this.low = (this.low - digestMix(key, version, DIGEST_SEED_LOW)) >>> 0;
    this.size -= 1;
  }

  /** 16 hex digits, as carried by the DIGEST frame (two u32 words, high first). */
  toString(): string {
    return this.high.toString(16).padStart(8, '0') + this.low.toString(16).padStart(8, '0');
  }
}
