// The state digest of docs/PROTOCOL.md ("The digest, exactly"): two sums mod
// 2^32 of a mix of every live (key, version), printed as 16 hex digits.

const SEED_HIGH = 0x9e3779b9;
const SEED_LOW = 0x7f4a7c15;

function mix(key, version, seed) {
  const lo = (version % 2 ** 32) >>> 0;
  const hi = Math.floor(version / 2 ** 32) >>> 0;
  let h = (seed ^ key) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ lo ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = Math.imul(h ^ hi ^ (h >>> 16), 0x27d4eb2f) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x165667b1) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The digest of [key, version] pairs of live keys. */
export function digestOf(pairs) {
  let high = 0;
  let low = 0;
  for (const [key, version] of pairs) {
    high = (high + mix(key, version, SEED_HIGH)) >>> 0;
    low = (low + mix(key, version, SEED_LOW)) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
