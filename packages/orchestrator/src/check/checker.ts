import type { ConsumerReport } from '@state-divergence/protocol';
import type { CheckResult, ConsumerCheck, Verdict } from '../model/check-types.js';
import type { OffsetRange } from './expectation.js';
import { discardedByKey, explainWrongKeys, NOTHING_EXPLAINED } from './explain.js';

export interface Authority {
  /** By key index; version 0 = never written. */
  versions: ArrayLike<number>;
  values: ArrayLike<number>;
  /** 1 where the key's last write deleted it. */
  deleted: ArrayLike<number>;
}

/** Every change published, indexed by version - 1. */
export interface History {
  keys: ArrayLike<number>;
  values: ArrayLike<number>;
  deleted: ArrayLike<number>;
}

export interface CheckInput {
  authority: Authority;
  history: History;
  /**
   * From the broker's report: its head and the offset of each key's last write.
   * null when the report could not be gathered: which writes never reached whom
   * is then unknown, so no wrong key can be explained and the verdict is `unknown`.
   */
  broker: { head: number; lastWriteOffsets: ArrayLike<number> } | null;
  /** [key, version] of each change sent to a broker that died before acknowledging it (PublisherReport.discarded);
   * absent: none. */
  discarded?: ReadonlyArray<readonly [number, number]>;
  consumers: Array<{
    name: string;
    /** Faulted at some point of the run: stalled, slowed or crashed. */
    faulted: boolean;
    report: ConsumerReport | null;
    /** The broker's side of what it missed (missed.ts; its report says the rest): offsets dropped for it, inclusive
     * ranges. */
    dropped: OffsetRange[];
    /** Where the broker disconnected it as a slow consumer, if it never subscribed again. */
    disconnectedAt?: number | null;
    /** Set when its process died: it could not say why its subscription ended, the orchestrator saw it. */
    died?: string | null;
    /** Set when the drain gave up on it: a wrong key may only be late, so wrong means unknown. */
    undrained?: string | null;
    /**
     * Set, with the reason, when the broker's report exists but holds no entry
     * for this name: what it missed is unknown (not "nothing"), so a wrong key
     * can be neither explained nor called a bug, and wrong means unknown.
     */
    noEvidence?: string | null;
    /**
     * After a broker restart: the versions a broker that died accepted and never delivered to it
     * (restart-evidence.ts); absent or []: no broker died; null: unknown (its report lists no subscriptions).
     */
    undelivered?: OffsetRange[] | null;
  }>;
}

/** false beats unknown beats true. */
export function mergeVerdicts(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('invalid')) return 'invalid';
  if (verdicts.includes('unknown')) return 'unknown';
  return 'valid';
}

function emitted(history: History, key: number, version: number, value: number): boolean {
  const i = version - 1;
  return (
    i >= 0 &&
    i < history.keys.length &&
    history.keys[i] === key &&
    history.values[i] === value &&
    history.deleted[i] === 0
  );
}

function drawnAsDelete(history: History, key: number, version: number): boolean {
  const i = version - 1;
  return i >= 0 && i < history.keys.length && history.keys[i] === key && history.deleted[i] === 1;
}

/** Why a consumer without its own report cannot be judged. */
export const COPY_NOT_GATHERED = 'its copy could not be gathered';
/** Why a wrong consumer the drain gave up on cannot be judged: a wrong key may only be late. */
export const UNDRAINED = 'the drain gave up while it was still catching up';

/** Why nothing can be explained without the broker's report. */
export const NO_BROKER_REPORT =
  "the broker's report could not be gathered: which writes it dropped for whom is unknown, so no wrong key can " +
  'be explained';

function checkConsumer(
  input: CheckInput,
  consumer: CheckInput['consumers'][number],
  discarded: ReadonlyMap<number, ReadonlySet<number>>,
): ConsumerCheck {
  const { authority, history, broker } = input;
  const base = {
    name: consumer.name,
    faulted: consumer.faulted,
    endedEarly: consumer.report?.endedEarly ?? consumer.died ?? null,
  };
  if (consumer.report === null) {
    return {
      ...base,
      verdict: 'unknown',
      applied: null,
      wrongKeys: [],
      lost: 0,
      unexpected: 0,
      unexplainedKeys: [],
      explained: NOTHING_EXPLAINED,
      unknownBecause: COPY_NOT_GATHERED,
    };
  }
  const held = new Map<number, [number, number]>();
  for (const [key, version, value] of consumer.report.entries) held.set(key, [version, value]);
  const wrong = new Set<number>();
  let lost = 0;
  let unexpected = 0;
  for (const [key, [version, value]] of held) {
    if (!emitted(history, key, version, value)) unexpected += 1;
  }
  let keys = authority.versions.length;
  for (const key of held.keys()) if (key >= keys) keys = key + 1;
  for (let key = 0; key < keys; key++) {
    const version = authority.versions[key] ?? 0;
    const exists = version > 0 && authority.deleted[key] === 0;
    const local = held.get(key);
    if (!exists) {
      if (local === undefined) continue; // never written, or deleted and not held: right
      wrong.add(key);
      if (local[0] < version) lost += 1;
      continue;
    }
    if (local === undefined || local[0] < version) {
      lost += 1;
      wrong.add(key);
    } else if (local[0] !== version || local[1] !== authority.values[key]) {
      wrong.add(key);
    }
  }
  const wrongKeys = [...wrong].sort((a, b) => a - b);
  // Without the broker's evidence a wrong key cannot be told from a bug: unknown, not invalid.
  const noEvidence = broker === null ? NO_BROKER_REPORT : (consumer.noEvidence ?? null);
  const unknownBecause = wrongKeys.length === 0 ? null : (noEvidence ?? (consumer.undrained ? UNDRAINED : null));
  const { explained, unexplainedKeys } =
    broker === null || noEvidence !== null
      ? { explained: NOTHING_EXPLAINED, unexplainedKeys: [] }
      : explainWrongKeys({
          broker: {
            head: broker.head,
            lastWriteOffsets: broker.lastWriteOffsets,
            dropped: consumer.dropped,
            disconnectedAt: consumer.disconnectedAt ?? null,
          },
          authority,
          report: consumer.report,
          held,
          wrong,
          undelivered: consumer.undelivered === undefined ? [] : consumer.undelivered,
          discarded,
          drawn: (key, version, value) => emitted(history, key, version, value),
          drawnDelete: (key, version) => drawnAsDelete(history, key, version),
        });
  return {
    ...base,
    verdict: wrongKeys.length === 0 ? 'valid' : unknownBecause !== null ? 'unknown' : 'invalid',
    applied: consumer.report.applied,
    wrongKeys,
    lost,
    unexpected,
    unexplainedKeys,
    explained,
    unknownBecause,
  };
}

/**
 * Diffs every consumer's local copy against the authority. Pure: the same
 * inputs always give the same result, so it is tested with hand-built maps.
 * A key is wrong when the consumer's version or value differs from the
 * authority's, when it lacks a key the authority has, or when it still holds a
 * key the authority deleted (or never wrote).
 */
export function check(input: CheckInput): CheckResult {
  const discarded = discardedByKey(input.discarded ?? []);
  const consumers = input.consumers.map((consumer) => checkConsumer(input, consumer, discarded));
  if (input.broker === null) return { verdict: 'unknown', consumers, error: NO_BROKER_REPORT };
  return { verdict: mergeVerdicts(consumers.map((c) => c.verdict)), consumers };
}

/**
 * Jepsen's habit: a checker that throws gives the verdict `unknown` with its
 * error, for the run and for every consumer, instead of failing the whole run.
 */
export function checkSafely(input: CheckInput, checker: (input: CheckInput) => CheckResult = check): CheckResult {
  try {
    return checker(input);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const failed = `the checker failed: ${message}`;
    const consumers = input.consumers.map((c): ConsumerCheck => ({
      name: c.name,
      faulted: c.faulted,
      verdict: 'unknown',
      applied: c.report?.applied ?? null,
      wrongKeys: [],
      lost: 0,
      unexpected: 0,
      unexplainedKeys: [],
      explained: NOTHING_EXPLAINED,
      endedEarly: c.report?.endedEarly ?? c.died ?? null,
      unknownBecause: c.report === null ? COPY_NOT_GATHERED : failed,
    }));
    return { verdict: 'unknown', consumers, error: failed };
  }
}
