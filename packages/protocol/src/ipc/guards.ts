import type { ChildInit, ChildMessage, OrchestratorCommand, RequestKind } from './messages.js';
import {
  countShape,
  digestShape,
  isRecord,
  lastWritesShape,
  linkShape,
  optionalShape,
  resourcesShape,
  roleValueProblem,
  textShape,
  versionsShape,
  type Check,
} from './role-shapes.js';

/**
 * Type guards for what arrives over the IPC channel: the other side is another
 * process, so its messages are checked for shape, field by field and per role
 * (role-shapes.ts), not cast. A message that fails is dropped by the receiver
 * (and logged with what is wrong), never trusted.
 */

export { isRecord };

const REQUEST_KINDS: ReadonlySet<string> = new Set<RequestKind>(['status', 'gather', 'digest', 'versions', 'lastWrites']);
export const isRequestKind = (value: unknown): value is RequestKind => typeof value === 'string' && REQUEST_KINDS.has(value);

/** The value a reply carries must fit its kind: counters and reports by their role, every field. */
const REPLY_VALUE: Record<RequestKind, Check> = {
  status: (value, path) => roleValueProblem('counters', value, path),
  gather: (value, path) => (isRecord(value) ? roleValueProblem('report', value.report, `${path}.report`) ?? resourcesShape(value.resources, `${path}.resources`) : `${path} is not an object`),
  digest: digestShape,
  versions: versionsShape,
  lastWrites: lastWritesShape,
};

/** What is wrong with a message a child sent (the first thing, by its path: "reply.value.head is missing"), or nothing. */
export function childMessageProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the message is not an object';
  const { type } = value;
  switch (type) {
    case 'booted':
      return countShape(value.pid, 'booted.pid');
    case 'ready':
      return countShape(value.pid, 'ready.pid') ?? optionalShape(countShape)(value.port, 'ready.port');
    case 'progress':
      return roleValueProblem('counters', value.counters, 'progress.counters') ?? optionalShape(textShape)(value.member, 'progress.member');
    case 'reply':
    case 'refused':
      if (!isRequestKind(value.kind)) return `${type}.kind is not a request kind`;
      return countShape(value.id, `${type}.id`) ?? (type === 'reply' ? REPLY_VALUE[value.kind](value.value, `reply.value`) : textShape(value.message, 'refused.message'));
    case 'done':
      return countShape(value.published, 'done.published');
    case 'ended':
      return textShape(value.reason, 'ended.reason') ?? optionalShape(textShape)(value.member, 'ended.member');
    case 'fatal':
      return textShape(value.message, 'fatal.message');
    default:
      return `its type ${JSON.stringify(type) ?? 'undefined'} is not one a child sends`;
  }
}

export const isChildMessage = (value: unknown): value is ChildMessage => childMessageProblem(value) === undefined;

/** What is wrong with an init message (every field of its role's init: "init.overflow is missing"), or nothing. */
export const initProblem = (value: unknown): string | undefined => roleValueProblem('init', value, 'init');

export const isChildInit = (value: unknown): value is ChildInit => initProblem(value) === undefined;

export function isOrchestratorCommand(value: unknown): value is OrchestratorCommand {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'start':
      return typeof value.durationMs === 'number' && Number.isFinite(value.durationMs);
    case 'request':
      return countShape(value.id, '') === undefined && isRequestKind(value.kind) && optionalShape(textShape)(value.member, '') === undefined;
    case 'phase':
      return typeof value.phase === 'string';
    case 'endSubscriber':
      return typeof value.name === 'string' && typeof value.reason === 'string';
    case 'shape':
      return linkShape(value.up, '') === undefined && linkShape(value.down, '') === undefined;
    case 'brokerLost':
      return optionalShape(textShape)(value.member, '') === undefined;
    case 'ending':
    case 'stop':
      return true;
    default:
      return false;
  }
}
