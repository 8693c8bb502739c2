import { randomBytes } from 'node:crypto';

/**
 * Characters a prefix may hold: a valid NATS subject token, KV bucket name, etcd key part, Redis
 * key and stream name alike, and no glob character (Redis SCAN MATCH reads `*?[`).
 */
const SAFE = /^[A-Za-z0-9_-]{1,64}$/;

/** A fresh per-run prefix under which a run keeps everything it writes. */
export function runPrefix(): string {
  return `sd-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Refuses a prefix that is not safe in every system's namespace, in one line. */
export function checkPrefix(prefix: string): string {
  if (!SAFE.test(prefix)) throw new Error(`prefix "${prefix}" must be 1-64 of A-Z a-z 0-9 _ -`);
  return prefix;
}
