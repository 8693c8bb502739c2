/**
 * An order-independent digest of a keyspace: over every live key, the sum
 * (mod 2^32) of two independent 32-bit mixes of (key, version). Sums make it
 * incremental - adding or removing one pair is O(1) - so the broker keeps its
 * digest current on every change, and two states with the same live
 * (key, version) pairs have the same digest whatever order they were built in.
 * Versions are global and unique, so equal pairs imply equal values.
 * Not cryptographic: it detects divergence, it does not resist forgery.
 */
function mix(key: number, version: number, seed: number): number {
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
    this.high = (this.high + mix(key, version, 0x9e37_79b9)) >>> 0;
    this.low = (this.low + mix(key, version, 0x7f4a_7c15)) >>> 0;
    this.size += 1;
  }

  remove(key: number, version: number): void {
    this.high = (this.high - mix(key, version, 0x9e37_79b9)) >>> 0;
    this.low = (this.low - mix(key, version, 0x7f4a_7c15)) >>> 0;
    this.size -= 1;
  }

  /** 16 hex digits, as carried by the DIGEST frame (two u32 words, high first). */
  toString(): string {
    return this.high.toString(16).padStart(8, '0') + this.low.toString(16).padStart(8, '0');
  }
}
