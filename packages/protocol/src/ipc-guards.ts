import type { ChildInit, ChildMessage, ChildRole, OrchestratorCommand, RequestKind } from './ipc.js';

/**
 * Type guards for what arrives over the IPC channel: the other side is another
 * process, so its messages are checked for shape, not cast. A message that
 * fails is dropped by the receiver (and logged), never trusted.
 */

const REQUEST_KINDS: ReadonlySet<string> = new Set<RequestKind>(['status', 'gather', 'digest', 'versions', 'lastWrites']);
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const hasRole = (value: unknown): boolean => isRecord(value) && isString(value.role);
const isRange = (value: unknown): boolean => Array.isArray(value) && value.length === 2 && isNumber(value[0]) && isNumber(value[1]);
const isRanges = (value: unknown): boolean => Array.isArray(value) && value.every(isRange);
/**
 * By its tag, not `instanceof`: a typed array deserialised from the IPC channel
 * belongs to the realm that read it, which is not this module's under a VM
 * (jest runs the tests in one).
 */
const isFloat64Array = (value: unknown): value is Float64Array => ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Float64Array]';
const isRecordOf = (value: unknown, isEntry: (entry: unknown) => boolean): boolean => isRecord(value) && Object.values(value).every(isEntry);

export const isRequestKind = (value: unknown): value is RequestKind => isString(value) && REQUEST_KINDS.has(value);

/** The value a reply carries must fit its kind: counters and reports name their role. */
function isReplyValue(kind: RequestKind, value: unknown): boolean {
  switch (kind) {
    case 'status':
      return hasRole(value);
    case 'gather':
      return isRecord(value) && hasRole(value.report) && isRecord(value.resources);
    case 'digest':
      return isRecord(value) && 'match' in value;
    case 'versions':
      return isFloat64Array(value);
    case 'lastWrites':
      return (
        isRecord(value) &&
        isNumber(value.head) &&
        isFloat64Array(value.offsets) &&
        isRecordOf(value.dropped, isRanges) &&
        isRecordOf(value.disconnectedAt, isNumber)
      );
  }
}

export function isChildMessage(value: unknown): value is ChildMessage {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'booted':
    case 'ready':
      return isNumber(value.pid);
    case 'progress':
      return hasRole(value.counters);
    case 'reply':
      return isNumber(value.id) && isRequestKind(value.kind) && isReplyValue(value.kind, value.value);
    case 'refused':
      return isNumber(value.id) && isRequestKind(value.kind) && isString(value.message);
    case 'done':
      return isNumber(value.published);
    case 'ended':
      return isString(value.reason);
    case 'fatal':
      return isString(value.message);
    default:
      return false;
  }
}

const ROLES: ReadonlySet<string> = new Set<ChildRole>(['broker', 'publisher', 'consumer', 'rogue']);

/** An init message: a known role and a name (the role's own fields are the orchestrator's to get right). */
export function isChildInit(value: unknown): value is ChildInit {
  return isRecord(value) && isString(value.role) && ROLES.has(value.role) && isString(value.name) && isRecord(value.log);
}

export function isOrchestratorCommand(value: unknown): value is OrchestratorCommand {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'start':
      return isNumber(value.durationMs);
    case 'request':
      return isNumber(value.id) && isRequestKind(value.kind);
    case 'phase':
      return isString(value.phase);
    case 'endSubscriber':
      return isString(value.name) && isString(value.reason);
    case 'ending':
    case 'stop':
      return true;
    default:
      return false;
  }
}
