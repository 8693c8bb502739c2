/**
 * Hand-built runs with a broker restart (`--crash broker@FROM-TO`), for the
 * checker's and the reports' unit tests: sixteen drawn changes over six keys,
 * no process started.
 *
 *   version  1  2  3  4  5  6  7  8 |  9 | 10 11 12 13 14 15 16
 *   key     k0 k1 k2 k3 k4 k5 k0 k1 | k2 | k3 k4 k3 k5 k4 k3 k5
 *
 * The first broker accepted and acknowledged versions 1-8 (its offsets 1-8) and
 * was killed with 9 sent but unacknowledged: the publisher discarded 9. Without
 * a log, the second broker starts empty in a new epoch: versions 10-16 are its
 * offsets 1-7. With a log, it recovers 1-8 and keeps the epoch: 10-16 are
 * offsets 9-15. The authority: k0 v7, k1 v8, k2 v3 (only the first broker
 * wrote them), k3 v15, k4 v14, k5 v16.
 */
import type { BrokerReport, ConsumerReport, Mode, SubscriptionRecord } from '@state-divergence/protocol';
import type { GatheredRun } from '@state-divergence/orchestrator/internal';
import { consumerReport, gathered } from './gathered-run.js';

export const KEYS = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 3, 5, 4, 3, 5];
export const value = (version: number): number => 200 + version;
export const DISCARDED = 9;
const VERSIONS = [7, 8, 3, 15, 14, 16];
export const history = {
  keys: Uint32Array.from(KEYS),
  values: Uint32Array.from(KEYS.map((_, i) => value(i + 1))),
  deleted: new Uint8Array(KEYS.length),
};
export const authority = { versions: VERSIONS, values: VERSIONS.map(value), deleted: [0, 0, 0, 0, 0, 0] };
/** Each key's last write at the final broker: none for k0-k2 without a log; with one, offsets continue (version 10 is
 * offset 9). */
export const OFFSETS = { memory: [0, 0, 0, 6, 5, 7], durable: [7, 8, 3, 14, 13, 15] };
export const EPOCHS = { first: 11, second: 22 };

/** Publishing started at wall 1,000 ms; the broker was killed at 3,000 and its successor was ready at 3,500. */
export const ORIGIN = { runMs: 500, wallMs: 1_000 };
export const OUTAGE = { from: 3_000, to: 3_500 };

/** (key, version, value) as a consumer holds a version. */
export const entry = (version: number): [number, number, number] => [KEYS[version - 1]!, version, value(version)];
/** A copy holding these versions, by key. */
export const copy = (...versions: number[]): Array<[number, number, number]> =>
  versions.map(entry).sort((a, b) => a[0] - b[0]);

/** A subscription record: before the outage by default, in the first epoch, from `latest` at head 0. */
export function subscription(fields: Partial<SubscriptionRecord>): SubscriptionRecord {
  return {
    at: 900,
    epoch: EPOCHS.first,
    head: 0,
    from: null,
    outcome: 'latest',
    catchUpBytes: 0,
    lastOffset: null,
    lastVersion: null,
    ...fields,
  };
}

export function subscriberEntry(
  fields: Partial<BrokerReport['subscribers'][string]> = {},
): BrokerReport['subscribers'][string] {
  return {
    queued: 0,
    delivered: 7,
    dropped: 0,
    lastAccepted: 7,
    bytesSent: 0,
    droppedRanges: [],
    maxQueued: 1,
    endedEarly: null,
    disconnectedAt: null,
    disconnects: 0,
    lags: 0,
    blockedWrites: [],
    marks: [],
    marksDropped: 0,
    resumes: 0,
    resyncBytes: 0,
    resyncFrames: 0,
    fullSnapshotBytes: 0,
    discarded: 0,
    replayedEvents: 0,
    replayBytes: 0,
    backfills: 0,
    transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
    ...fields,
  };
}

/** A consumer's report after the restart: its copy, its subscriptions, and anything else it says. */
export function restartReport(
  entries: Array<[number, number, number]>,
  subscriptions: SubscriptionRecord[] | undefined,
  extra: Partial<ConsumerReport> = {},
): ConsumerReport {
  return consumerReport(entries, { ...(subscriptions && { subscriptions }), ...extra });
}

/**
 * A run of that story under `mode` (a log when it is durable), with these consumers
 * and, per name, the final broker's entry (no drops unless given).
 */
export function restartRun(
  mode: Mode,
  consumers: Array<[string, ConsumerReport | null]>,
  entries: Record<string, Partial<BrokerReport['subscribers'][string]>> = {},
): GatheredRun {
  const durable = mode === 'durable';
  const broker: BrokerReport = {
    role: 'broker',
    epoch: durable ? EPOCHS.first : EPOCHS.second,
    recovered: durable ? { records: 8, tornTail: 1 } : null,
    durable: durable ? { fsync: 'periodic', logBytes: 5_120, fsyncs: 12, oldest: 1 } : null,
    head: durable ? 15 : 7,
    lastWriteOffsets: durable ? OFFSETS.durable : OFFSETS.memory,
    digest: '0',
    subscribers: Object.fromEntries(consumers.map(([name]) => [name, subscriberEntry(entries[name])])),
  };
  const run = gathered(broker, consumers);
  run.mode = mode;
  // No consumer was faulted: the broker's restart is what every one of them lived through.
  run.consumers = run.consumers.map((c) => ({ ...c, faulted: false }));
  run.wrongOverTime = { ...run.wrongOverTime, t: [0, 1, 2, 3, 4], publisherRate: [0, 5, 5, 5, 0] };
  run.publisher = {
    ...run.publisher,
    published: 15,
    authority,
    history,
    discarded: [[KEYS[DISCARDED - 1]!, DISCARDED]],
    acknowledgedLost: durable ? 0 : 8,
    reconnects: 1,
    outageMs: 520,
  };
  run.origin = ORIGIN;
  run.brokerOutages = [OUTAGE];
  return run;
}
