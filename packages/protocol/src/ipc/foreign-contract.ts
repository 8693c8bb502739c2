import type { ChildMessage, RequestKind } from './messages.js';
import type {
  ConsumerCounters,
  ConsumerReport,
  DigestVerdict,
  ProcessResources,
  SubscriptionRecord,
  SyncRecord,
} from './reports.js';
import { isRequestKind } from './guards.js';
import { resourcesShape } from './role-shapes.js';
import {
  both,
  count,
  fields,
  flag,
  is,
  isCount,
  isNumber,
  isObject,
  listOf,
  misfit,
  nullable,
  number,
  oneOf,
  optional,
  quoted,
  text,
  type Check,
} from './shape-kit.js';

/**
 * A consumer the orchestrator did not write (`--consumer-cmd`) speaks the same
 * IPC messages as ours, as newline-delimited JSON (docs/CONSUMER.md). JSON has
 * no typed arrays, and a foreign program owes us nothing, so every message it
 * sends is checked field by field and converted to the orchestrator's types
 * here, at the channel. A message that does not fit says exactly where it is
 * wrong, so the report can state the contract failure instead of a timeout.
 * The checks are the IPC guards' kit (shape-kit.ts); the shapes are this contract's own: most
 * fields may be left out, and a misfit says what was expected, present or not.
 */

export type ForeignRead =
  | { ok: true; message: ChildMessage }
  /** `request` is set when the message was a reply or refusal: that request fails with `problem`. */
  | { ok: false; problem: string; request?: { id: number; kind: RequestKind } };

/** Where a value is wrong, relative to what was read ("entries[12] is not [key, version, value]"). */
class Malformed extends Error {}

/** `value` fits `check` at `path`, or Malformed says where it does not and what was expected there. */
function mustFit<T>(check: Check, value: unknown, path: string): asserts value is T {
  const found = check(value, path);
  if (found !== undefined) throw new Malformed(`${found.path} ${found.wrong}`);
}

/** A part of a message: named by what it is when it is no object ("report"), its fields from it ("applied"). */
function mustFitPart<T>(check: Check, value: unknown, name: string): asserts value is T {
  if (!isObject(value)) throw new Malformed(`${name} is not an object`);
  mustFit<T>(check, value, '');
}

const duration = is((v) => isNumber(v) && v >= 0, 'a non-negative number of ms');
const textOrNull = is((v) => v === null || typeof v === 'string', 'a string or null');
const isPair = (v: unknown, test: (n: unknown) => n is number): v is [number, number] =>
  Array.isArray(v) && v.length === 2 && test(v[0]) && test(v[1]);
/** Offsets as [from, to], from <= to. */
const ranges = listOf(
  is((v) => isPair(v, isCount) && v[0] <= v[1], '[from, to] with from <= to'),
  'a list of [from, to]',
);
/** Stale spans: [from, to] wall-clock ms, from <= to (ConsumerReport.staleSpans). */
const spans = listOf(
  is((v) => isPair(v, isNumber) && v[0] <= v[1], '[from, to] wall-clock ms with from <= to'),
  'a list of [from, to]',
);
/** removedBySnapshot: [key, version it had] per key. */
const keyVersions = listOf(
  is((v) => isPair(v, isCount), '[key, version]'),
  'a list of [key, version]',
);
const numbers = listOf(number, 'a list of numbers');

/** A version is at least 1; a value is a u32. */
const isEntry = (v: unknown): v is [number, number, number] =>
  Array.isArray(v) &&
  v.length === 3 &&
  isCount(v[0]) &&
  isCount(v[1]) &&
  v[1] !== 0 &&
  isCount(v[2]) &&
  v[2] <= 0xffff_ffff;

/** The local copy: [key, version, value] per live key, each key once. */
const entries: Check = (value, path) => {
  if (!Array.isArray(value)) return misfit(value, path, 'a list of [key, version, value]');
  const seen = new Set<number>();
  for (let i = 0; i < value.length; i++) {
    const entry: unknown = value[i];
    if (!isEntry(entry)) return misfit(entry, `${path}[${i}]`, '[key, version, value]');
    if (seen.has(entry[0])) return misfit(entry, `${path}[${i}]`, `the only entry for key ${entry[0]}`);
    seen.add(entry[0]);
  }
  return undefined;
};

/** Latency samples as JSON: two lists of numbers, one pair per applied event. */
interface ForeignLatency {
  appliedAt: number[];
  latencyMs: number[];
}
const sameLength = (v: unknown): boolean =>
  isObject(v) && Array.isArray(v.appliedAt) && Array.isArray(v.latencyMs) && v.appliedAt.length === v.latencyMs.length;
const latency = both(
  fields<ForeignLatency>({ appliedAt: numbers, latencyMs: numbers }),
  is(sameLength, 'two lists of the same length'),
);

const syncs = listOf(
  fields<SyncRecord>({
    kind: oneOf(['snapshot', 'delta'], '"snapshot" or "delta"'),
    at: number,
    frames: count,
    keys: count,
    bytes: count,
    offset: count,
  }),
  'a list of syncs',
);
const OUTCOMES: ReadonlyArray<SubscriptionRecord['outcome']> = ['latest', 'snapshot', 'replayed', 'tooOld'];
const subscriptions = listOf(
  fields<SubscriptionRecord>({
    outcome: oneOf(OUTCOMES, quoted(OUTCOMES)),
    at: number,
    epoch: count,
    head: count,
    from: nullable(count),
    catchUpBytes: count,
    lastOffset: nullable(count),
    lastVersion: nullable(count),
  }),
  'a list of subscriptions',
);
const restoredFrom = nullable(
  fields<NonNullable<ConsumerReport['restoredFrom']>>({ offset: count, epoch: count, keys: count }),
);

/**
 * What a foreign consumer's counters must carry (applied, lastOffset) and may (the rest; absent: a
 * default). cpuMicros is not asked of it (docs/CONSUMER.md): one it sends is not read.
 */
type ForeignCounters = Pick<ConsumerCounters, 'applied' | 'lastOffset'> &
  Partial<Omit<ConsumerCounters, 'role' | 'applied' | 'lastOffset' | 'cpuMicros'>>;
const COUNTERS = fields<ForeignCounters>({
  repairedRanges: optional(ranges),
  stale: optional(flag),
  staleMs: optional(duration),
  applied: count,
  lastOffset: count,
  endedEarly: optional(textOrNull),
  syncing: optional(flag),
  reconnects: optional(count),
  skippedRanges: optional(ranges),
  coveredAfter: optional(count),
});

/** What a foreign consumer's report must carry (applied, lastOffset, entries) and may (the rest). */
type ForeignReport = Pick<ConsumerReport, 'applied' | 'lastOffset' | 'entries'> &
  Partial<Omit<ConsumerReport, 'role' | 'applied' | 'lastOffset' | 'entries' | 'latency'>> & {
    latency?: ForeignLatency;
  };
const REPORT = fields<ForeignReport>({
  repairedRanges: optional(ranges),
  subscriptions: optional(subscriptions),
  removedBySnapshot: optional(keyVersions),
  restoredFrom: optional(restoredFrom),
  staleMs: optional(duration),
  staleSpans: optional(spans),
  applied: count,
  lastOffset: count,
  entries,
  coveredAfter: optional(count),
  latency: optional(latency),
  lags: optional(count),
  resumes: optional(count),
  syncs: optional(syncs),
  endedEarly: optional(textOrNull),
  disconnects: optional(count),
  reconnects: optional(count),
  skippedRanges: optional(ranges),
});

type ForeignVerdict = Pick<DigestVerdict, 'match'> & Partial<Omit<DigestVerdict, 'match'>>;
const VERDICT = fields<ForeignVerdict>({
  match: oneOf([true, false, null], 'true, false or null'),
  local: optional(text),
  broker: optional(text),
  brokerOffset: optional(count),
  localOffset: optional(count),
  error: optional(text),
});

const PID = fields<{ pid: number }>({ pid: count });
const REASON = fields<{ reason: string }>({ reason: text });
const MESSAGE = fields<{ message: string }>({ message: text });

// Copies with only our types' fields: whatever else a foreign program sent reaches no report.
const syncRecord = ({ kind, at, frames, keys, bytes, offset }: SyncRecord): SyncRecord => ({
  kind,
  at,
  frames,
  keys,
  bytes,
  offset,
});
const subscriptionRecord = (s: SubscriptionRecord): SubscriptionRecord => {
  const { at, epoch, head, from, outcome, catchUpBytes, lastOffset, lastVersion } = s;
  return { at, epoch, head, from, outcome, catchUpBytes, lastOffset, lastVersion };
};

export function readForeignCounters(v: unknown): ConsumerCounters {
  mustFitPart<ForeignCounters>(COUNTERS, v, 'counters');
  return {
    ...(v.repairedRanges !== undefined && { repairedRanges: v.repairedRanges }),
    // A consumer that tracks its own staleness (docs/CONSUMER.md); absent: it does not.
    ...(v.stale !== undefined && { stale: v.stale }),
    ...(v.staleMs !== undefined && { staleMs: v.staleMs }),
    role: 'consumer',
    applied: v.applied,
    lastOffset: v.lastOffset,
    endedEarly: v.endedEarly ?? null,
    syncing: v.syncing ?? false,
    reconnects: v.reconnects ?? 0,
    skippedRanges: v.skippedRanges ?? [],
    coveredAfter: v.coveredAfter ?? 0,
  };
}

export function readForeignReport(v: unknown): ConsumerReport {
  mustFitPart<ForeignReport>(REPORT, v, 'report');
  const { restoredFrom: restored } = v;
  // Optional and left out when absent (the report's types mark them optional: a foreign consumer owes none of them).
  const present = {
    ...(v.repairedRanges !== undefined && { repairedRanges: v.repairedRanges }),
    ...(v.subscriptions !== undefined && { subscriptions: v.subscriptions.map(subscriptionRecord) }),
    ...(v.removedBySnapshot !== undefined && { removedBySnapshot: v.removedBySnapshot }),
    ...(restored !== undefined && {
      restoredFrom: restored === null ? null : { offset: restored.offset, epoch: restored.epoch, keys: restored.keys },
    }),
    ...(v.staleMs !== undefined && { staleMs: v.staleMs }),
    ...(v.staleSpans !== undefined && { staleSpans: v.staleSpans }),
  };
  return {
    ...present,
    role: 'consumer',
    applied: v.applied,
    lastOffset: v.lastOffset,
    entries: v.entries,
    coveredAfter: v.coveredAfter ?? 0,
    latency: {
      appliedAt: new Float64Array(v.latency?.appliedAt ?? []),
      latencyMs: new Float64Array(v.latency?.latencyMs ?? []),
    },
    lags: v.lags ?? 0,
    resumes: v.resumes ?? 0,
    syncs: (v.syncs ?? []).map(syncRecord),
    endedEarly: v.endedEarly ?? null,
    disconnects: v.disconnects ?? 0,
    reconnects: v.reconnects ?? 0,
    skippedRanges: v.skippedRanges ?? [],
  };
}

function readResources(v: unknown): ProcessResources {
  if (v === undefined) return { cpuMs: 0, maxRssKb: 0 };
  mustFit<ProcessResources>(resourcesShape, v, 'resources');
  return { cpuMs: v.cpuMs, maxRssKb: v.maxRssKb };
}

function readVerdict(v: unknown): DigestVerdict {
  mustFitPart<ForeignVerdict>(VERDICT, v, 'the verdict');
  return {
    match: v.match,
    local: v.local ?? '',
    broker: v.broker ?? '',
    brokerOffset: v.brokerOffset ?? 0,
    localOffset: v.localOffset ?? 0,
    ...(v.error !== undefined && { error: v.error }),
  };
}

function readVersions(v: unknown): Float64Array {
  mustFit<number[]>(numbers, v, 'versions');
  return new Float64Array(v);
}

/** What the problem says the consumer answered with: "answered gather with a malformed map: ...". */
const NOUNS: Record<RequestKind, string> = {
  status: 'malformed counters',
  gather: 'a malformed report',
  digest: 'a malformed digest verdict',
  versions: 'a malformed version list',
  lastWrites: 'a lastWrites reply',
};

function reply(id: number, kind: RequestKind, value: unknown): ChildMessage {
  switch (kind) {
    case 'status':
      return { type: 'reply', id, kind, value: readForeignCounters(value) };
    case 'gather': {
      if (!isObject(value)) throw new Malformed('the reply is not an object');
      const gathered = { report: readForeignReport(value.report), resources: readResources(value.resources) };
      return { type: 'reply', id, kind, value: gathered };
    }
    case 'digest':
      return { type: 'reply', id, kind, value: readVerdict(value) };
    case 'versions':
      return { type: 'reply', id, kind, value: readVersions(value) };
    case 'lastWrites':
      throw new Malformed('lastWrites is never asked of a consumer');
  }
}

function message(raw: Record<string, unknown>): ChildMessage {
  switch (raw.type) {
    case 'booted':
    case 'ready': {
      const { type } = raw;
      mustFit<{ pid: number }>(PID, raw, '');
      return { type, pid: raw.pid };
    }
    case 'progress':
      return { type: 'progress', counters: readForeignCounters(raw.counters) };
    case 'ended':
      mustFit<{ reason: string }>(REASON, raw, '');
      return { type: 'ended', reason: raw.reason };
    case 'fatal':
      mustFit<{ message: string }>(MESSAGE, raw, '');
      return { type: 'fatal', message: raw.message };
    default:
      throw new Error(`unreachable: ${String(raw.type)} was checked against SENT_BY_A_CONSUMER`);
  }
}

const SENT_BY_A_CONSUMER: ReadonlySet<unknown> = new Set([
  'booted',
  'ready',
  'progress',
  'reply',
  'refused',
  'ended',
  'fatal',
]);

/** Reads one JSON message from a foreign consumer: the orchestrator's ChildMessage, or where it is wrong. */
export function readForeignMessage(raw: unknown): ForeignRead {
  if (!isObject(raw)) return { ok: false, problem: 'sent a message that is not a JSON object' };
  if (!SENT_BY_A_CONSUMER.has(raw.type)) {
    const problem = `sent a message of type ${String(JSON.stringify(raw.type))}, which a consumer never sends`;
    return { ok: false, problem };
  }
  const request = isCount(raw.id) && isRequestKind(raw.kind) ? { id: raw.id, kind: raw.kind } : undefined;
  const isAnswer = raw.type === 'reply' || raw.type === 'refused';
  if (isAnswer && request === undefined) {
    return { ok: false, problem: `sent a ${raw.type} without a valid id and kind` };
  }
  try {
    if (raw.type === 'refused' && request !== undefined) {
      mustFit<{ message: string }>(MESSAGE, raw, '');
      return { ok: true, message: { type: 'refused', ...request, message: raw.message } };
    }
    if (raw.type === 'reply' && request !== undefined) {
      return { ok: true, message: reply(request.id, request.kind, raw.value) };
    }
    return { ok: true, message: message(raw) };
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    if (request !== undefined) {
      const isMap = request.kind === 'gather' && error.message.startsWith('entries');
      const noun = isMap ? 'a malformed map' : NOUNS[request.kind];
      return { ok: false, problem: `answered ${request.kind} with ${noun}: ${error.message}`, request };
    }
    return { ok: false, problem: `sent a malformed ${String(raw.type)} message: ${error.message}` };
  }
}
