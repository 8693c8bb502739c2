import type { LastWrites, SubscriberCounters, SubscriberReport } from '@state-divergence/protocol';
import type { Topic } from './topic.js';

/**
 * What the broker tells the orchestrator about its subscribers: one entry per
 * name that ever subscribed (a disconnected name keeps its figures), with the
 * current subscription's queue, or 0 when it has none.
 */
export function subscriberCounters(topic: Topic): Record<string, SubscriberCounters> {
  return Object.fromEntries(
    [...topic.stats].map(([name, stats]) => [name, stats.counters(topic.subscribers.get(name)?.queued ?? 0)]),
  );
}

export function subscriberReports(topic: Topic): Record<string, SubscriberReport> {
  return Object.fromEntries(
    [...topic.stats].map(([name, stats]) => [name, stats.report(topic.subscribers.get(name)?.queued ?? 0)]),
  );
}

/**
 * The `lastWrites` answer, all as of one head: a copy of the offsets the table
 * keeps current, and each name's drop ranges (compact runs, copied by the IPC
 * channel's serialisation as it is sent, in this same tick).
 */
export function lastWrites(topic: Topic, keys: number): LastWrites {
  const dropped: Record<string, Array<[number, number]>> = {};
  const disconnectedAt: Record<string, number> = {};
  for (const [name, stats] of topic.stats) {
    dropped[name] = stats.drops.ranges;
    if (stats.disconnectedAt !== null) disconnectedAt[name] = stats.disconnectedAt;
  }
  return { head: topic.headOffset, offsets: topic.table.lastWriteOffsetArray(keys), dropped, disconnectedAt };
}
