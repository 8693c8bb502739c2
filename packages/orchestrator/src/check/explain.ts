import type { ConsumerReport } from '@state-divergence/protocol';
import type { Explained } from '../model/check-types.js';
import type { OffsetRange } from './expectation.js';
import { isMissed, missedRanges, type BrokerEvidence } from './missed.js';

/**
 * Why each wrong key is wrong, from evidence only. Without a broker restart
 * there is one explanation, today's: the key's last write at the final broker is
 * among the offsets the consumer missed (missed.ts). After a restart the dead
 * broker's report died with it, and three more, each with its own evidence:
 *
 * - forgotten: the final broker's table does not hold the key (it never wrote
 *   it: a broker without a log starts empty), and a snapshot removed it from
 *   the consumer's copy (ConsumerReport.removedBySnapshot): the restarted
 *   broker's snapshot did not hold it;
 * - lost with the broker: the final broker never wrote the key either, the
 *   consumer is behind on it, and the authority's version is one the dead broker
 *   accepted but never delivered to this consumer (restart-evidence.ts: past
 *   its subscription's last contiguous version when that broker died);
 * - in doubt: the consumer holds a change exactly as the publisher sent it to a
 *   broker that died before acknowledging it (PublisherReport.discarded), newer
 *   than the authority's version: it reached the consumer, but it was never made.
 *
 * A wrong key none of them covers is unexplained (a bug in the demo), and so is
 * a key the first rule explains although the consumer holds it right (the rule
 * must be exact). The other three only ever explain a wrong key.
 */

export const NOTHING_EXPLAINED: Explained = { missed: 0, forgotten: 0, lostWithBroker: 0, inDoubt: 0 };

export interface ExplainInput {
  broker: BrokerEvidence & { lastWriteOffsets: ArrayLike<number> };
  authority: { versions: ArrayLike<number>; deleted: ArrayLike<number> };
  report: ConsumerReport;
  /** What the consumer holds: key -> [version, value]. */
  held: ReadonlyMap<number, readonly [number, number]>;
  wrong: ReadonlySet<number>;
  /** Versions a broker that died accepted and never delivered to it (restart-evidence.ts); null: unknown; [] no broker
   * died. */
  undelivered: OffsetRange[] | null;
  /** Per key, the versions sent to a broker that died before acknowledging them. */
  discarded: ReadonlyMap<number, ReadonlySet<number>>;
  /** Whether the publisher drew exactly this (key, version, value): an in-doubt version must be one it sent. */
  drawn: (key: number, version: number, value: number) => boolean;
  /** Whether the publisher drew this version of this key as a delete. */
  drawnDelete: (key: number, version: number) => boolean;
}

/**
 * A delete the publisher sent and discarded (never acknowledged) that the dead broker may have
 * delivered: the consumer then holds a tombstone, so the key is missing from its copy while the
 * authority still has it live at an older version.
 */
function inDoubtDelete(key: number, version: number, input: ExplainInput): boolean {
  for (const d of input.discarded.get(key) ?? []) if (d > version && input.drawnDelete(key, d)) return true;
  return false;
}

/** Keys whose last write at the final broker the consumer missed, less deletes of keys it does not hold (they did no
 * harm). */
function missedKeys(input: ExplainInput): Set<number> {
  const { broker, authority, report, held } = input;
  const missed = missedRanges(broker, report);
  const keys = new Set<number>();
  for (let key = 0; key < broker.lastWriteOffsets.length; key++) {
    const offset = broker.lastWriteOffsets[key]!;
    if (offset === 0 || !isMissed(missed, offset)) continue;
    if (authority.deleted[key] === 1 && !held.has(key)) continue;
    keys.add(key);
  }
  return keys;
}

/** Every wrong key's explanation counted (the first that covers it, in the order above), and the keys none covers,
 * ascending. */
export function explainWrongKeys(input: ExplainInput): { explained: Explained; unexplainedKeys: number[] } {
  const { broker, authority, report, held, wrong, undelivered, discarded, drawn } = input;
  const missed = missedKeys(input);
  const removed = new Set((report.removedBySnapshot ?? []).map(([key]) => key));
  const explained = { ...NOTHING_EXPLAINED };
  const unexplainedKeys: number[] = [];
  for (const key of wrong) {
    const version = authority.versions[key] ?? 0;
    const local = held.get(key);
    // The final broker never wrote it: its last write, if any, was accepted by a broker that died.
    const onlyDeadBroker = (broker.lastWriteOffsets[key] ?? 0) === 0 && version > 0;
    if (missed.has(key)) explained.missed += 1;
    else if (onlyDeadBroker && local === undefined && removed.has(key) && authority.deleted[key] === 0)
      explained.forgotten += 1;
    else if (
      onlyDeadBroker &&
      (local === undefined || local[0] < version) &&
      undelivered !== null &&
      isMissed(undelivered, version)
    )
      explained.lostWithBroker += 1;
    else if (
      local !== undefined &&
      local[0] > version &&
      discarded.get(key)?.has(local[0]) === true &&
      drawn(key, local[0], local[1])
    )
      explained.inDoubt += 1;
    else if (local === undefined && authority.deleted[key] === 0 && inDoubtDelete(key, version, input))
      explained.inDoubt += 1;
    else unexplainedKeys.push(key);
  }
  for (const key of missed) if (!wrong.has(key)) unexplainedKeys.push(key);
  return { explained, unexplainedKeys: unexplainedKeys.sort((a, b) => a - b) };
}

/** PublisherReport.discarded by key. */
export function discardedByKey(discarded: ReadonlyArray<readonly [number, number]>): Map<number, Set<number>> {
  const byKey = new Map<number, Set<number>>();
  for (const [key, version] of discarded) {
    const versions = byKey.get(key) ?? new Set<number>();
    versions.add(version);
    byKey.set(key, versions);
  }
  return byKey;
}
