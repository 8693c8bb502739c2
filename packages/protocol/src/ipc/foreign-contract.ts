import type { ChildMessage, RequestKind } from './messages.js';
import type {
  ConsumerCounters,
  ConsumerReport,
  DigestVerdict,
  LatencySamples,
  ProcessResources,
  SubscriptionRecord,
  SyncRecord,
} from './reports.js';
import { isRecord, isRequestKind } from './guards.js';

/**
 * A consumer the orchestrator did not write (`--consumer-cmd`) speaks the same
 * IPC messages as ours, as newline-delimited JSON (docs/CONSUMER.md). JSON has
 * no typed arrays, and a foreign program owes us nothing, so every message it
 * sends is checked field by field and converted to the orchestrator's types
 * here, at the channel. A message that does not fit says exactly where it is
 * wrong, so the report can state the contract failure instead of a timeout.
 */

export type ForeignRead =
  | { ok: true; message: ChildMessage }
  /** `request` is set when the message was a reply or refusal: that request fails with `problem`. */
  | { ok: false; problem: string; request?: { id: number; kind: RequestKind } };

/** Where a value is wrong, relative to what was read ("entries[12] is not [key, version, value]"). */
class Malformed extends Error {}

const fail = (path: string, expected: string): never => {
  throw new Malformed(`${path} is not ${expected}`);
};
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isFinite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const count = (v: unknown, path: string): number => (isCount(v) ? v : fail(path, 'a non-negative integer'));
const duration = (v: unknown, path: string): number => (isFinite(v) && v >= 0 ? v : fail(path, 'a non-negative number of ms'));
const finite = (v: unknown, path: string): number => (isFinite(v) ? v : fail(path, 'a number'));
const text = (v: unknown, path: string): string => (typeof v === 'string' ? v : fail(path, 'a string'));
const flag = (v: unknown, path: string): boolean => (typeof v === 'boolean' ? v : fail(path, 'true or false'));
const textOrNull = (v: unknown, path: string): string | null => (v === null ? null : typeof v === 'string' ? v : fail(path, 'a string or null'));
const record = (v: unknown, path: string): Record<string, unknown> => (isRecord(v) && !Array.isArray(v) ? v : fail(path, 'an object'));
const list = (v: unknown, path: string, expected: string): unknown[] => (Array.isArray(v) ? v : fail(path, expected));

/** An optional field: absent (or null where null is not a value) means its default. */
function optional<T>(from: Record<string, unknown>, key: string, read: (v: unknown, path: string) => T, fallback: T): T {
  const value = from[key];
  return value === undefined ? fallback : read(value, key);
}

/** Stale spans: [from, to] wall-clock ms, from <= to (ConsumerReport.staleSpans). */
function spans(v: unknown, path: string): Array<[number, number]> {
  return list(v, path, 'a list of [from, to]').map((span, i) => {
    if (!Array.isArray(span) || span.length !== 2 || !isFinite(span[0]) || !isFinite(span[1]) || span[0] > span[1]) return fail(`${path}[${i}]`, '[from, to] wall-clock ms with from <= to');
    return [span[0], span[1]];
  });
}

function ranges(v: unknown, path: string): Array<[number, number]> {
  return list(v, path, 'a list of [from, to]').map((range, i) => {
    const at = `${path}[${i}]`;
    if (!Array.isArray(range) || range.length !== 2 || !isCount(range[0]) || !isCount(range[1]) || range[0] > range[1]) return fail(at, '[from, to] with from <= to');
    return [range[0], range[1]];
  });
}

/** The local copy: [key, version, value] per live key, each key once. */
function entries(v: unknown, path: string): Array<[number, number, number]> {
  const seen = new Set<number>();
  return list(v, path, 'a list of [key, version, value]').map((entry, i) => {
    const at = `${path}[${i}]`;
    if (!Array.isArray(entry) || entry.length !== 3 || !isCount(entry[0]) || !isCount(entry[1]) || entry[1] === 0 || !isCount(entry[2]) || entry[2] > 0xffff_ffff) {
      return fail(at, '[key, version, value]');
    }
    if (seen.has(entry[0])) return fail(at, `the only entry for key ${entry[0]}`);
    seen.add(entry[0]);
    return [entry[0], entry[1], entry[2]];
  });
}

function numbers(v: unknown, path: string): Float64Array {
  const values = list(v, path, 'a list of numbers');
  const out = new Float64Array(values.length);
  values.forEach((n, i) => (out[i] = finite(n, `${path}[${i}]`)));
  return out;
}

function latency(v: unknown, path: string): LatencySamples {
  const r = record(v, path);
  const samples = { appliedAt: numbers(r.appliedAt, `${path}.appliedAt`), latencyMs: numbers(r.latencyMs, `${path}.latencyMs`) };
  if (samples.appliedAt.length !== samples.latencyMs.length) fail(path, 'two lists of the same length');
  return samples;
}

function syncs(v: unknown, path: string): SyncRecord[] {
  return list(v, path, 'a list of syncs').map((s, i) => {
    const at = `${path}[${i}]`;
    const r = record(s, at);
    const kind = r.kind === 'snapshot' || r.kind === 'delta' ? r.kind : fail(`${at}.kind`, '"snapshot" or "delta"');
    return { kind, at: finite(r.at, `${at}.at`), frames: count(r.frames, `${at}.frames`), keys: count(r.keys, `${at}.keys`), bytes: count(r.bytes, `${at}.bytes`), offset: count(r.offset, `${at}.offset`) };
  });
}

const countOrNull = (v: unknown, path: string): number | null => (v === null ? null : count(v, path));
const OUTCOMES: ReadonlyArray<SubscriptionRecord['outcome']> = ['latest', 'snapshot', 'replayed', 'tooOld'];

function subscriptions(v: unknown, path: string): SubscriptionRecord[] {
  return list(v, path, 'a list of subscriptions').map((s, i) => {
    const at = `${path}[${i}]`;
    const r = record(s, at);
    const outcome = OUTCOMES.find((o) => o === r.outcome) ?? fail(`${at}.outcome`, OUTCOMES.map((o) => `"${o}"`).join(', '));
    return {
      at: finite(r.at, `${at}.at`), epoch: count(r.epoch, `${at}.epoch`), head: count(r.head, `${at}.head`), from: countOrNull(r.from, `${at}.from`), outcome,
      catchUpBytes: count(r.catchUpBytes, `${at}.catchUpBytes`), lastOffset: countOrNull(r.lastOffset, `${at}.lastOffset`), lastVersion: countOrNull(r.lastVersion, `${at}.lastVersion`),
    };
  });
}

/** removedBySnapshot: [key, version it had] per key. */
function keyVersions(v: unknown, path: string): Array<[number, number]> {
  return list(v, path, 'a list of [key, version]').map((pair, i) => (Array.isArray(pair) && pair.length === 2 && isCount(pair[0]) && isCount(pair[1]) ? [pair[0], pair[1]] : fail(`${path}[${i}]`, '[key, version]')));
}

function restoredFrom(v: unknown, path: string): NonNullable<ConsumerReport['restoredFrom']> | null {
  if (v === null) return null;
  const r = record(v, path);
  return { offset: count(r.offset, `${path}.offset`), epoch: count(r.epoch, `${path}.epoch`), keys: count(r.keys, `${path}.keys`) };
}

export function readForeignCounters(v: unknown): ConsumerCounters {
  const r = record(v, 'counters');
  const present = {
    ...(r.repairedRanges !== undefined && { repairedRanges: ranges(r.repairedRanges, 'repairedRanges') }),
    // A consumer that tracks its own staleness (docs/CONSUMER.md); absent: it does not.
    ...(r.stale !== undefined && { stale: flag(r.stale, 'stale') }),
    ...(r.staleMs !== undefined && { staleMs: duration(r.staleMs, 'staleMs') }),
  };
  return {
    ...present,
    role: 'consumer',
    applied: count(r.applied, 'applied'),
    lastOffset: count(r.lastOffset, 'lastOffset'),
    endedEarly: optional(r, 'endedEarly', textOrNull, null),
    syncing: optional(r, 'syncing', flag, false),
    reconnects: optional(r, 'reconnects', count, 0),
    skippedRanges: optional(r, 'skippedRanges', ranges, []),
    coveredAfter: optional(r, 'coveredAfter', count, 0),
  };
}

export function readForeignReport(v: unknown): ConsumerReport {
  const r = record(v, 'report');
  // Optional and left out when absent (the report's types mark them optional: a foreign consumer owes none of them).
  const present = {
    ...(r.repairedRanges !== undefined && { repairedRanges: ranges(r.repairedRanges, 'repairedRanges') }),
    ...(r.subscriptions !== undefined && { subscriptions: subscriptions(r.subscriptions, 'subscriptions') }),
    ...(r.removedBySnapshot !== undefined && { removedBySnapshot: keyVersions(r.removedBySnapshot, 'removedBySnapshot') }),
    ...(r.restoredFrom !== undefined && { restoredFrom: restoredFrom(r.restoredFrom, 'restoredFrom') }),
    ...(r.staleMs !== undefined && { staleMs: duration(r.staleMs, 'staleMs') }),
    ...(r.staleSpans !== undefined && { staleSpans: spans(r.staleSpans, 'staleSpans') }),
  };
  return {
    ...present,
    role: 'consumer',
    applied: count(r.applied, 'applied'),
    lastOffset: count(r.lastOffset, 'lastOffset'),
    entries: entries(r.entries, 'entries'),
    coveredAfter: optional(r, 'coveredAfter', count, 0),
    latency: optional(r, 'latency', latency, { appliedAt: new Float64Array(0), latencyMs: new Float64Array(0) }),
    lags: optional(r, 'lags', count, 0),
    resumes: optional(r, 'resumes', count, 0),
    syncs: optional(r, 'syncs', syncs, []),
    endedEarly: optional(r, 'endedEarly', textOrNull, null),
    disconnects: optional(r, 'disconnects', count, 0),
    reconnects: optional(r, 'reconnects', count, 0),
    skippedRanges: optional(r, 'skippedRanges', ranges, []),
  };
}

function resources(v: unknown, path: string): ProcessResources {
  const r = record(v, path);
  return { cpuMs: finite(r.cpuMs, `${path}.cpuMs`), maxRssKb: finite(r.maxRssKb, `${path}.maxRssKb`) };
}

function verdict(v: unknown): DigestVerdict {
  const r = record(v, 'the verdict');
  const match = r.match === null || typeof r.match === 'boolean' ? r.match : fail('match', 'true, false or null');
  const read: DigestVerdict = {
    match,
    local: optional(r, 'local', text, ''),
    broker: optional(r, 'broker', text, ''),
    brokerOffset: optional(r, 'brokerOffset', count, 0),
    localOffset: optional(r, 'localOffset', count, 0),
  };
  if (r.error !== undefined) read.error = text(r.error, 'error');
  return read;
}

/** What the problem says the consumer answered with: "answered gather with a malformed map: ...". */
const NOUNS: Record<RequestKind, string> = { status: 'malformed counters', gather: 'a malformed report', digest: 'a malformed digest verdict', versions: 'a malformed version list', lastWrites: 'a lastWrites reply' };

function reply(id: number, kind: RequestKind, value: unknown): ChildMessage {
  switch (kind) {
    case 'status':
      return { type: 'reply', id, kind, value: readForeignCounters(value) };
    case 'gather': {
      const r = record(value, 'the reply');
      const gathered = { report: readForeignReport(r.report), resources: optional(r, 'resources', resources, { cpuMs: 0, maxRssKb: 0 }) };
      return { type: 'reply', id, kind, value: gathered };
    }
    case 'digest':
      return { type: 'reply', id, kind, value: verdict(value) };
    case 'versions':
      return { type: 'reply', id, kind, value: numbers(value, 'versions') };
    case 'lastWrites':
      throw new Malformed('lastWrites is never asked of a consumer');
  }
}

function message(raw: Record<string, unknown>): ChildMessage {
  switch (raw.type) {
    case 'booted':
    case 'ready':
      return { type: raw.type, pid: count(raw.pid, 'pid') };
    case 'progress':
      return { type: 'progress', counters: readForeignCounters(raw.counters) };
    case 'ended':
      return { type: 'ended', reason: text(raw.reason, 'reason') };
    case 'fatal':
      return { type: 'fatal', message: text(raw.message, 'message') };
    default:
      throw new Error(`unreachable: ${String(raw.type)} was checked against SENT_BY_A_CONSUMER`);
  }
}

const SENT_BY_A_CONSUMER: ReadonlySet<unknown> = new Set(['booted', 'ready', 'progress', 'reply', 'refused', 'ended', 'fatal']);

/** Reads one JSON message from a foreign consumer: the orchestrator's ChildMessage, or where it is wrong. */
export function readForeignMessage(raw: unknown): ForeignRead {
  if (!isRecord(raw) || Array.isArray(raw)) return { ok: false, problem: 'sent a message that is not a JSON object' };
  if (!SENT_BY_A_CONSUMER.has(raw.type)) return { ok: false, problem: `sent a message of type ${String(JSON.stringify(raw.type))}, which a consumer never sends` };
  const isAnswer = raw.type === 'reply' || raw.type === 'refused';
  if (isAnswer && !(isCount(raw.id) && isRequestKind(raw.kind))) return { ok: false, problem: `sent a ${raw.type} without a valid id and kind` };
  try {
    if (raw.type === 'refused' && isCount(raw.id) && isRequestKind(raw.kind)) return { ok: true, message: { type: 'refused', id: raw.id, kind: raw.kind, message: text(raw.message, 'message') } };
    if (raw.type === 'reply' && isCount(raw.id) && isRequestKind(raw.kind)) return { ok: true, message: reply(raw.id, raw.kind, raw.value) };
    return { ok: true, message: message(raw) };
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    if (isCount(raw.id) && isRequestKind(raw.kind)) {
      const noun = raw.kind === 'gather' && error.message.startsWith('entries') ? 'a malformed map' : NOUNS[raw.kind];
      return { ok: false, problem: `answered ${raw.kind} with ${noun}: ${error.message}`, request: { id: raw.id, kind: raw.kind } };
    }
    return { ok: false, problem: `sent a malformed ${String(raw.type)} message: ${error.message}` };
  }
}
