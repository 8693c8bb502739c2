import type { ConsumerReport } from '@state-divergence/protocol';

/** Jepsen's three outcomes: a checker that cannot tell says so. */
export type Verdict = 'valid' | 'invalid' | 'unknown';

export interface CheckInput {
  /** Authoritative state by key index; version 0 = never written. */
  authority: { versions: ArrayLike<number>; values: ArrayLike<number> };
  consumers: Array<{ name: string; stalled: boolean; report: ConsumerReport | null }>;
}

export interface ConsumerCheck {
  name: string;
  stalled: boolean;
  verdict: Verdict;
  applied: number | null;
  /** Key indices whose local value is wrong, ascending (the named keys come first). */
  wrongKeys: number[];
  /** Held, but at an older version than the authority's. */
  stale: number;
  /** Written by the publisher, never seen by this consumer. */
  missing: number;
  /** Held at a version, or for a key, the publisher never had: must be 0, or the demo is broken. */
  unexpected: number;
  endedEarly: string | null;
}

export interface CheckResult {
  verdict: Verdict;
  consumers: ConsumerCheck[];
}

/** false beats unknown beats true. */
export function mergeVerdicts(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('invalid')) return 'invalid';
  if (verdicts.includes('unknown')) return 'unknown';
  return 'valid';
}

function checkConsumer(authority: CheckInput['authority'], consumer: CheckInput['consumers'][number]): ConsumerCheck {
  const base = { name: consumer.name, stalled: consumer.stalled, endedEarly: consumer.report?.endedEarly ?? null };
  if (consumer.report === null) {
    return { ...base, verdict: 'unknown', applied: null, wrongKeys: [], stale: 0, missing: 0, unexpected: 0 };
  }
  const held = new Map<number, [number, number]>();
  for (const [key, version, value] of consumer.report.entries) held.set(key, [version, value]);
  const wrong = new Set<number>();
  let stale = 0;
  let missing = 0;
  let unexpected = 0;
  for (let key = 0; key < authority.versions.length; key++) {
    const version = authority.versions[key]!;
    const local = held.get(key);
    if (version === 0) continue; // never written: nothing to be wrong about (unless held: below)
    if (local === undefined) {
      missing += 1;
      wrong.add(key);
    } else if (local[0] < version) {
      stale += 1;
      wrong.add(key);
    } else if (local[0] > version || local[1] !== authority.values[key]) {
      unexpected += 1;
      wrong.add(key);
    }
  }
  for (const key of held.keys()) {
    if (key >= authority.versions.length || authority.versions[key] === 0) {
      unexpected += 1;
      wrong.add(key);
    }
  }
  const wrongKeys = [...wrong].sort((a, b) => a - b);
  return {
    ...base,
    verdict: wrongKeys.length > 0 ? 'invalid' : 'valid',
    applied: consumer.report.applied,
    wrongKeys,
    stale,
    missing,
    unexpected,
  };
}

/**
 * Diffs every consumer's local copy against the authority. Pure: the same
 * inputs always give the same result, so it is tested with hand-built maps.
 * A key is wrong when the consumer's version or value differs from the
 * authority's, when the consumer lacks a key the authority wrote, or when it
 * holds a key the authority never wrote.
 */
export function check(input: CheckInput): CheckResult {
  const consumers = input.consumers.map((consumer) => checkConsumer(input.authority, consumer));
  return { verdict: mergeVerdicts(consumers.map((c) => c.verdict)), consumers };
}
