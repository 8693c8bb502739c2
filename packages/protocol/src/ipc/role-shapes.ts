import {
  FSYNC_POLICIES,
  LOG_LEVELS,
  MODES,
  OVERFLOW_POLICIES,
  type BrokerEndpoint,
  type BrokerInit,
  type DurableSettings,
  type ChildRole,
  type ConsumerInit,
  type LogSettings,
  type PoolInit,
  type PublisherInit,
  type RelayInit,
  type RoleMessages,
  type RogueInit,
} from './messages.js';
import type { LinkShape } from '../link-shape.js';
import type {
  BlockedWrite,
  BrokerCounters,
  BrokerReport,
  ConsumerCounters,
  ConsumerReport,
  DigestVerdict,
  DurableReport,
  SubscriptionRecord,
  LastWrites,
  LatencySamples,
  LinkCounters,
  PoolCounters,
  PoolReport,
  ProcessResources,
  PublisherCounters,
  PublisherReport,
  RelayCounters,
  RelayReport,
  RogueCounters,
  RogueReport,
  SubscriberCounters,
  SubscriberMark,
  SubscriberMarkKind,
  SubscriberReport,
  SyncRecord,
  TransportStats,
} from './reports.js';

/**
 * The shape of every value that crosses the IPC channel, field by field: each
 * role's init, counters and report. A check returns nothing when the value
 * fits, else the first thing wrong, named by its path ("init.overflow is
 * missing"), so a child refusing its init and the orchestrator refusing a
 * reply both say exactly why. `fields<T>` must list every key of T (the
 * compiler sees to it), so a field added to a message type is checked too.
 */
export type Check = (value: unknown, path: string) => string | undefined;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const is = (test: (value: unknown) => boolean, expected: string): Check => (value, path) =>
  test(value) ? undefined : value === undefined ? `${path} is missing` : `${path} is not ${expected}`;

const number = is((v) => typeof v === 'number' && Number.isFinite(v), 'a number');
const count = is((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0, 'a non-negative integer');
const text = is((v) => typeof v === 'string', 'a string');
const flag = is((v) => typeof v === 'boolean', 'true or false');
const oneOf = (values: readonly unknown[]): Check => is((v) => values.includes(v), `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
const nullable = (check: Check): Check => (value, path) => (value === null ? undefined : check(value, path));
/** For a field marked `?`: absent is fine, present must fit. */
const optional = (check: Check): Check => (value, path) => (value === undefined ? undefined : check(value, path));
/**
 * By its tag, not `instanceof`: a typed array deserialised from the IPC channel
 * belongs to the realm that read it, which is not this module's under a VM
 * (jest runs the tests in one).
 */
const typedArray = (tag: string): Check => is((v) => ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === `[object ${tag}]`, `a ${tag}`);

/** Each element; the path is built only for the element that fails (a local copy has up to a million). */
const listOf = (check: Check): Check => (value, path) => {
  if (!Array.isArray(value)) return is(() => false, 'a list')(value, path);
  for (let i = 0; i < value.length; i++) if (check(value[i], '') !== undefined) return check(value[i], `${path}[${i}]`);
  return undefined;
};
const tupleOf = (...checks: Check[]): Check => (value, path) => {
  if (!Array.isArray(value) || value.length !== checks.length) return is(() => false, `a list of ${checks.length}`)(value, path);
  for (let i = 0; i < checks.length; i++) {
    const problem = checks[i]!(value[i], `${path}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
};
const recordOf = (check: Check): Check => (value, path) => {
  if (!isRecord(value) || Array.isArray(value)) return is(() => false, 'an object')(value, path);
  for (const [key, entry] of Object.entries(value)) {
    const problem = check(entry, `${path}.${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
};
/** An object with exactly these checks per field: every key of T, optional ones included. */
export function fields<T>(shape: { [K in keyof T]-?: Check }): Check {
  const entries = Object.entries<Check>(shape);
  return (value, path) => {
    if (!isRecord(value) || Array.isArray(value)) return is(() => false, 'an object')(value, path);
    for (const [key, check] of entries) {
      const problem = check(value[key], `${path}.${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

const range = tupleOf(count, count);
const ranges = listOf(range);
const log = fields<LogSettings>({ level: oneOf(LOG_LEVELS), file: nullable(text), mode: nullable(oneOf(MODES)) });
const broker = fields<BrokerEndpoint>({ host: text, port: count, caPem: text, idleTimeoutMs: number, datagramBytes: count, token: text });

const subscriberCounters = {
  queued: count, delivered: count, dropped: count, lastAccepted: count, bytesSent: count,
} satisfies { [K in keyof SubscriberCounters]-?: Check };
const blockedWrite = fields<BlockedWrite>({ startedAt: number, bytesBefore: count, bytes: count, ms: number });
/** Every kind, by key, so one added to the type must be added here too. */
const MARK_KINDS: Record<SubscriberMarkKind, true> = {
  subscribed: true, 'drops started': true, 'drops ended': true, lagged: true, 'resume requested': true, 'delta sent': true, disconnected: true,
};
const subscriberMark = fields<SubscriberMark>({ at: number, what: oneOf(Object.keys(MARK_KINDS)), offset: count });
const subscriberReport = fields<SubscriberReport>({
  ...subscriberCounters,
  droppedRanges: ranges, maxQueued: count, endedEarly: nullable(text), disconnectedAt: nullable(count), disconnects: count, lags: count,
  blockedWrites: listOf(blockedWrite), marks: listOf(subscriberMark), marksDropped: count, resumes: count, resyncBytes: count, resyncFrames: count, fullSnapshotBytes: count, discarded: count,
  replayedEvents: count, replayBytes: count, backfills: count, transport: fields<TransportStats>({ sent: count, lost: count, retrans: count, retransBytes: count }),
});
const durableSettings = fields<DurableSettings>({ dir: text, fsync: oneOf(FSYNC_POLICIES), retention: nullable(count) });
const durableReport = fields<DurableReport>({ fsync: oneOf(FSYNC_POLICIES), logBytes: count, fsyncs: count, oldest: count });
const subscriptionRecord = fields<SubscriptionRecord>({
  at: number, epoch: count, head: count, from: nullable(count), outcome: oneOf(['latest', 'snapshot', 'replayed', 'tooOld']), catchUpBytes: count,
  lastOffset: nullable(count), lastVersion: nullable(count),
});
const latency = fields<LatencySamples>({ appliedAt: typedArray('Float64Array'), latencyMs: typedArray('Float64Array') });
const percent = is((v) => typeof v === 'number' && v >= 0 && v <= 100, 'a percentage from 0 to 100');
/** Exported for the relay's `shape` command (guards.ts). */
export const linkShape = fields<LinkShape>({ lossPct: percent, correlationPct: percent, delayMs: number, jitterMs: number });
const linkCounters = fields<LinkCounters>({ forwarded: count, dropped: count, bytes: count, maxHeld: count });
const sync = fields<SyncRecord>({ kind: oneOf(['snapshot', 'delta']), at: number, frames: count, keys: count, bytes: count, offset: count });

/** Every check of one role, found by the value's `role` field. */
const consumerInit = fields<ConsumerInit>({ role: oneOf(['consumer']), name: text, broker, subscribeWith: oneOf(['latest', 'snapshot']), detectGaps: flag, checkpointDir: nullable(text), staleAfterMs: nullable(count), log });
/** At least one element, each fitting `check`. */
const nonEmptyListOf = (check: Check): Check => (value, path) => listOf(check)(value, path) ?? (Array.isArray(value) && value.length === 0 ? `${path} is empty` : undefined);

const ROLE_SHAPES: { [R in ChildRole]: { [K in keyof RoleMessages[R]]: Check } } = {
  broker: {
    init: fields<BrokerInit>({
      role: oneOf(['broker']), name: oneOf(['broker']), mode: oneOf(MODES), host: text, port: count, durable: nullable(durableSettings), keys: count, queueCapacity: count,
      overflow: oneOf(OVERFLOW_POLICIES), batchMaxEvents: count, coalesceMs: count, streamWindowBytes: count, datagramBytes: count, heartbeatMs: number,
      certPem: text, keyPem: text, idleTimeoutMs: number, token: text, log,
    }),
    counters: fields<BrokerCounters>({ role: oneOf(['broker']), at: number, head: count, subscribers: recordOf(fields<SubscriberCounters>(subscriberCounters)), cpuMicros: count }),
    report: fields<BrokerReport>({
      role: oneOf(['broker']), epoch: count, recovered: nullable(fields<NonNullable<BrokerReport['recovered']>>({ records: count, tornTail: count })), durable: nullable(durableReport), head: count, subscribers: recordOf(subscriberReport), lastWriteOffsets: listOf(count), digest: text,
    }),
  },
  publisher: {
    init: fields<PublisherInit>({ role: oneOf(['publisher']), name: oneOf(['publisher']), broker, keys: count, rate: number, payload: count, seed: number, deleteRatio: number, log }),
    counters: fields<PublisherCounters>({ role: oneOf(['publisher']), published: count, done: flag, cpuMicros: count }),
    report: fields<PublisherReport>({
      role: oneOf(['publisher']), published: count,
      authority: fields<PublisherReport['authority']>({ versions: listOf(count), values: listOf(count), deleted: listOf(count) }),
      history: fields<PublisherReport['history']>({ keys: typedArray('Uint32Array'), values: typedArray('Uint32Array'), deleted: typedArray('Uint8Array') }),
      startedAt: number, stoppedAt: number, blockedMs: number, discarded: listOf(range), acknowledgedLost: count, reconnects: count, outageMs: number,
    }),
  },
  consumer: {
    init: consumerInit,
    counters: fields<ConsumerCounters>({
      role: oneOf(['consumer']), applied: count, lastOffset: count, endedEarly: nullable(text), syncing: flag, reconnects: count, skippedRanges: ranges, coveredAfter: count,
      repairedRanges: optional(ranges), stale: optional(flag), staleMs: optional(number), cpuMicros: optional(count),
    }),
    report: fields<ConsumerReport>({
      role: oneOf(['consumer']), applied: count, lastOffset: count, coveredAfter: count, latency, lags: count, resumes: count, syncs: listOf(sync),
      entries: listOf(tupleOf(count, count, count)), endedEarly: nullable(text), disconnects: count, reconnects: count, skippedRanges: ranges, repairedRanges: optional(ranges),
      subscriptions: optional(listOf(subscriptionRecord)), removedBySnapshot: optional(listOf(range)),
      restoredFrom: optional(nullable(fields<NonNullable<NonNullable<ConsumerReport['restoredFrom']>>>({ offset: count, epoch: count, keys: count }))),
      staleMs: optional(number), staleSpans: optional(listOf(tupleOf(number, number))),
    }),
  },
  rogue: {
    init: fields<RogueInit>({ role: oneOf(['rogue']), name: oneOf(['rogue']), broker, decoyCaPem: text, frames: count, seed: number, log }),
    counters: fields<RogueCounters>({ role: oneOf(['rogue']), connections: count, framesSent: count, done: flag }),
    report: fields<RogueReport>({
      role: oneOf(['rogue']), connections: count, framesSent: count, refusals: recordOf(count), closedWithoutError: count,
      wrongPinRejected: nullable(flag), done: flag, byAttack: recordOf(recordOf(count)),
    }),
  },
  relay: {
    init: fields<RelayInit>({
      role: oneOf(['relay']), name: text, client: text, upstream: fields<RelayInit['upstream']>({ host: text, port: count }), datagramBytes: count, seed: number, log,
    }),
    counters: fields<RelayCounters>({ role: oneOf(['relay']), up: linkCounters, down: linkCounters }),
    report: fields<RelayReport>({ role: oneOf(['relay']), up: linkCounters, down: linkCounters, clients: count, cpuMicros: number }),
  },
  pool: {
    init: fields<PoolInit>({ role: oneOf(['pool']), name: text, members: nonEmptyListOf(consumerInit), log }),
    counters: fields<PoolCounters>({ role: oneOf(['pool']), members: count, ended: count, applied: count, cpuMicros: number }),
    report: fields<PoolReport>({ role: oneOf(['pool']), members: count, ended: count, applied: count, cpuMicros: number, names: listOf(text) }),
  },
};
const ROLES: readonly unknown[] = Object.keys(ROLE_SHAPES);
const isRole = (value: unknown): value is ChildRole => ROLES.includes(value);

/** What is wrong with `value` as a role's `init`, `counters` or `report` (its `role` picks which), or nothing. */
export function roleValueProblem(kind: 'init' | 'counters' | 'report', value: unknown, path: string): string | undefined {
  if (!isRecord(value)) return is(() => false, 'an object')(value, path);
  if (!isRole(value.role)) return oneOf(ROLES)(value.role, `${path}.role`);
  return ROLE_SHAPES[value.role][kind](value, path);
}

export const resourcesShape = fields<ProcessResources>({ cpuMs: number, maxRssKb: number });
export const digestShape = fields<DigestVerdict>({ match: nullable(flag), error: optional(text), local: text, broker: text, brokerOffset: count, localOffset: count });
export const lastWritesShape = fields<LastWrites>({ head: count, offsets: typedArray('Float64Array'), dropped: recordOf(ranges), disconnectedAt: recordOf(count) });
export const versionsShape = typedArray('Float64Array');
export { count as countShape, text as textShape, optional as optionalShape };
