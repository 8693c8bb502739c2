import { FSYNC_POLICIES, MODES, QUEUE_POLICIES } from '../modes.js';
import { MAX_LINK_DELAY_MS, MAX_LINK_RATE, MIN_LINK_RATE, type LinkShape } from '../link-shape.js';
import {
  LOG_LEVELS,
  type BrokerEndpoint,
  type BrokerInit,
  type ChildRole,
  type ConsumerInit,
  type DurableSettings,
  type LogSettings,
  type PoolInit,
  type PublisherInit,
  type RelayInit,
  type RoleMessages,
  type RogueInit,
} from './messages.js';
import type {
  BlockedWrite,
  BrokerCounters,
  BrokerReport,
  ConsumerCounters,
  ConsumerReport,
  DigestVerdict,
  DurableReport,
  LastWrites,
  LatencySamples,
  LinkCounters,
  ByDirection,
  StreamCounters,
  CapWindow,
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
  SubscriptionRecord,
  SyncRecord,
  TransportStats,
} from './reports.js';
import {
  count,
  fields,
  flag,
  is,
  isRecord,
  listOf,
  misfit,
  nonEmptyListOf,
  nullable,
  number,
  oneOf,
  optional,
  recordOf,
  text,
  tupleOf,
  typedArray,
  type Check,
  type Shape,
} from './shape-kit.js';
import { settingCheck, settingShapes } from './setting-shapes.js';

/**
 * The shape of every value our own processes send over the IPC channel, field by field: each
 * role's init, counters and report, and the values replies carry (guards.ts checks messages with
 * them). `fields<T>` must list every key of T, so a field added to a message type is checked too.
 */

const range = tupleOf(count, count);
const ranges = listOf(range);
const log = fields<LogSettings>({ level: oneOf(LOG_LEVELS), file: nullable(text), mode: nullable(oneOf(MODES)) });
const datagramBytes = settingCheck('datagramSize');
const broker = fields<BrokerEndpoint>({
  host: text,
  port: count,
  caPem: text,
  idleTimeoutMs: settingCheck('idleTimeoutMs'),
  datagramBytes,
  token: text,
});

const subscriberCounters = {
  queued: count,
  delivered: count,
  dropped: count,
  lastAccepted: count,
  bytesSent: count,
} satisfies Shape<SubscriberCounters>;
const blockedWrite = fields<BlockedWrite>({ startedAt: number, bytesBefore: count, bytes: count, ms: number });
/** Every kind, by key, so one added to the type must be added here too. */
const MARK_KINDS: Record<SubscriberMarkKind, true> = {
  subscribed: true,
  'drops started': true,
  'drops ended': true,
  lagged: true,
  'resume requested': true,
  'delta sent': true,
  disconnected: true,
};
const subscriberMark = fields<SubscriberMark>({ at: number, what: oneOf(Object.keys(MARK_KINDS)), offset: count });
const transport = fields<TransportStats>({ sent: count, lost: count, retrans: count, retransBytes: count });
const subscriberReport = fields<SubscriberReport>({
  ...subscriberCounters,
  droppedRanges: ranges,
  maxQueued: count,
  endedEarly: nullable(text),
  disconnectedAt: nullable(count),
  disconnects: count,
  lags: count,
  blockedWrites: listOf(blockedWrite),
  marks: listOf(subscriberMark),
  marksDropped: count,
  resumes: count,
  resyncBytes: count,
  resyncFrames: count,
  fullSnapshotBytes: count,
  discarded: count,
  replayedEvents: count,
  replayBytes: count,
  backfills: count,
  transport,
});
const durableSettings = fields<DurableSettings>({
  dir: text,
  fsync: oneOf(FSYNC_POLICIES),
  retention: nullable(settingCheck('retention')),
});
const durableReport = fields<DurableReport>({
  fsync: oneOf(FSYNC_POLICIES),
  logBytes: count,
  fsyncs: count,
  oldest: count,
});
const subscriptionRecord = fields<SubscriptionRecord>({
  at: number,
  epoch: count,
  head: count,
  from: nullable(count),
  outcome: oneOf(['latest', 'snapshot', 'replayed', 'tooOld']),
  catchUpBytes: count,
  lastOffset: nullable(count),
  lastVersion: nullable(count),
});
const latency = fields<LatencySamples>({
  appliedAt: typedArray('Float64Array'),
  latencyMs: typedArray('Float64Array'),
});
const percent = is((v) => typeof v === 'number' && v >= 0 && v <= 100, 'a percentage from 0 to 100');
/** CLEAR_LINK holds nothing (0); --delay takes up to MAX_LINK_DELAY_MS, its jitter no more than that. */
const delay = is(
  (v) => typeof v === 'number' && v >= 0 && v <= MAX_LINK_DELAY_MS,
  `a delay from 0 to ${MAX_LINK_DELAY_MS} ms`,
);
/** The relay's `shape` command carries one per direction (guards.ts). */
export const linkShape = fields<LinkShape>({
  lossPct: percent,
  correlationPct: percent,
  delayMs: delay,
  jitterMs: delay,
  rateBytesPerSec: is(
    (v) => v === 0 || (Number.isInteger(v) && (v as number) >= MIN_LINK_RATE && (v as number) <= MAX_LINK_RATE),
    `0 (no cap) or a whole rate from ${MIN_LINK_RATE} to ${MAX_LINK_RATE} bytes a second`,
  ),
});
const linkCounters = fields<LinkCounters>({ forwarded: count, dropped: count, bytes: count, maxHeld: count });
const byDirection = fields<ByDirection>({ up: count, down: count });
const streamCounters = fields<StreamCounters>({
  accepted: count,
  open: count,
  heldBytes: byDirection,
  maxHeldBytes: byDirection,
  heals: listOf(byDirection),
  resetConnections: count,
  discardedBytes: count,
});
const capWindow = fields<CapWindow>({
  rateBytesPerSec: count,
  bucketBytes: count,
  queueBytes: count,
  seconds: number,
  arrivedBytes: byDirection,
  forwardedBytes: byDirection,
  dropped: byDirection,
  droppedBytes: byDirection,
  maxHeldBytes: byDirection,
  heldAtEndBytes: byDirection,
  pauses: byDirection,
});
const sync = fields<SyncRecord>({
  kind: oneOf(['snapshot', 'delta']),
  at: number,
  frames: count,
  keys: count,
  bytes: count,
  offset: count,
});
const recovered = fields<NonNullable<BrokerReport['recovered']>>({ records: count, tornTail: count });
const restoredFrom = fields<NonNullable<ConsumerReport['restoredFrom']>>({
  offset: count,
  epoch: count,
  keys: count,
});

const consumerInit = fields<ConsumerInit>({
  role: oneOf(['consumer']),
  name: text,
  broker,
  subscribeWith: oneOf(['latest', 'snapshot']),
  detectGaps: flag,
  resumable: flag,
  checkpointDir: nullable(text),
  staleAfterMs: nullable(settingCheck('staleAfterMs')),
  log,
});

/** Every check of one role, found by the value's `role` field. */
const ROLE_SHAPES: { [R in ChildRole]: { [K in keyof RoleMessages[R]]: Check } } = {
  broker: {
    init: fields<BrokerInit>({
      role: oneOf(['broker']),
      name: oneOf(['broker']),
      host: text,
      port: count,
      queuePolicy: oneOf(QUEUE_POLICIES),
      durableLog: nullable(durableSettings),
      ...settingShapes('broker'),
      batchMaxEvents: count,
      streamWindowBytes: count,
      datagramBytes,
      heartbeatMs: nullable(number),
      certPem: text,
      keyPem: text,
      token: text,
      log,
    }),
    counters: fields<BrokerCounters>({
      role: oneOf(['broker']),
      at: number,
      head: count,
      subscribers: recordOf(fields<SubscriberCounters>(subscriberCounters)),
      cpuMicros: count,
    }),
    report: fields<BrokerReport>({
      role: oneOf(['broker']),
      epoch: count,
      recovered: nullable(recovered),
      durable: nullable(durableReport),
      head: count,
      subscribers: recordOf(subscriberReport),
      lastWriteOffsets: listOf(count),
      digest: text,
    }),
  },
  publisher: {
    init: fields<PublisherInit>({
      role: oneOf(['publisher']),
      name: oneOf(['publisher']),
      broker,
      ...settingShapes('publisher'),
      log,
    }),
    counters: fields<PublisherCounters>({ role: oneOf(['publisher']), published: count, done: flag, cpuMicros: count }),
    report: fields<PublisherReport>({
      role: oneOf(['publisher']),
      published: count,
      authority: fields<PublisherReport['authority']>({
        versions: listOf(count),
        values: listOf(count),
        deleted: listOf(count),
      }),
      history: fields<PublisherReport['history']>({
        keys: typedArray('Uint32Array'),
        values: typedArray('Uint32Array'),
        deleted: typedArray('Uint8Array'),
      }),
      startedAt: number,
      stoppedAt: number,
      blockedMs: number,
      discarded: listOf(range),
      acknowledgedLost: count,
      reconnects: count,
      outageMs: number,
    }),
  },
  consumer: {
    init: consumerInit,
    counters: fields<ConsumerCounters>({
      role: oneOf(['consumer']),
      applied: count,
      lastOffset: count,
      endedEarly: nullable(text),
      syncing: flag,
      reconnects: count,
      skippedRanges: ranges,
      coveredAfter: count,
      repairedRanges: optional(ranges),
      stale: optional(flag),
      staleMs: optional(number),
      cpuMicros: optional(count),
    }),
    report: fields<ConsumerReport>({
      role: oneOf(['consumer']),
      applied: count,
      lastOffset: count,
      coveredAfter: count,
      latency,
      lags: count,
      resumes: count,
      syncs: listOf(sync),
      entries: listOf(tupleOf(count, count, count)),
      endedEarly: nullable(text),
      disconnects: count,
      reconnects: count,
      skippedRanges: ranges,
      repairedRanges: optional(ranges),
      subscriptions: optional(listOf(subscriptionRecord)),
      removedBySnapshot: optional(listOf(range)),
      restoredFrom: optional(nullable(restoredFrom)),
      staleMs: optional(number),
      staleSpans: optional(listOf(tupleOf(number, number))),
    }),
  },
  rogue: {
    init: fields<RogueInit>({
      role: oneOf(['rogue']),
      name: oneOf(['rogue']),
      broker,
      decoyCaPem: text,
      ...settingShapes('rogue'),
      log,
    }),
    counters: fields<RogueCounters>({ role: oneOf(['rogue']), connections: count, framesSent: count, done: flag }),
    report: fields<RogueReport>({
      role: oneOf(['rogue']),
      connections: count,
      framesSent: count,
      refusals: recordOf(count),
      closedWithoutError: count,
      wrongPinRejected: nullable(flag),
      done: flag,
      byAttack: recordOf(recordOf(count)),
    }),
  },
  relay: {
    init: fields<RelayInit>({
      role: oneOf(['relay']),
      name: text,
      client: text,
      upstream: fields<RelayInit['upstream']>({ host: text, port: count }),
      transport: optional(oneOf(['udp', 'tcp'])),
      datagramBytes,
      ...settingShapes('relay'),
      log,
    }),
    counters: fields<RelayCounters>({
      role: oneOf(['relay']),
      up: linkCounters,
      down: linkCounters,
      stream: optional(streamCounters),
      caps: listOf(capWindow),
    }),
    report: fields<RelayReport>({
      role: oneOf(['relay']),
      up: linkCounters,
      down: linkCounters,
      stream: optional(streamCounters),
      caps: listOf(capWindow),
      clients: count,
      cpuMicros: number,
    }),
  },
  pool: {
    init: fields<PoolInit>({ role: oneOf(['pool']), name: text, members: nonEmptyListOf(consumerInit), log }),
    counters: fields<PoolCounters>({
      role: oneOf(['pool']),
      members: count,
      ended: count,
      applied: count,
      cpuMicros: number,
    }),
    report: fields<PoolReport>({
      role: oneOf(['pool']),
      members: count,
      ended: count,
      applied: count,
      cpuMicros: number,
      names: listOf(text),
    }),
  },
};
const ROLES: readonly unknown[] = Object.keys(ROLE_SHAPES);
const isRole = (value: unknown): value is ChildRole => ROLES.includes(value);

/** A role's `init`, `counters` or `report`, checked by the shape its `role` field picks. */
export const roleShape =
  (kind: 'init' | 'counters' | 'report'): Check =>
  (value, path) => {
    if (!isRecord(value)) return misfit(value, path, 'an object');
    if (!isRole(value.role)) return oneOf(ROLES)(value.role, `${path}.role`);
    return ROLE_SHAPES[value.role][kind](value, path);
  };

export const resourcesShape = fields<ProcessResources>({ cpuMs: number, maxRssKb: number });
export const digestShape = fields<DigestVerdict>({
  match: nullable(flag),
  error: optional(text),
  local: text,
  broker: text,
  brokerOffset: count,
  localOffset: count,
});
export const lastWritesShape = fields<LastWrites>({
  head: count,
  offsets: typedArray('Float64Array'),
  dropped: recordOf(ranges),
  disconnectedAt: recordOf(count),
});
export const versionsShape = typedArray('Float64Array');
