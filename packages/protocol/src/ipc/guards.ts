import type { ChildInit, ChildMessage, OrchestratorCommand, RequestKind } from './messages.js';
import { digestShape, lastWritesShape, linkShape, resourcesShape, roleShape, versionsShape } from './role-shapes.js';
import { count, isRecord, misfit, optional, text, type Check, type Misfit } from './shape-kit.js';

/**
 * Type guards for what arrives over the IPC channel from our own processes: the other side is
 * another process, so its messages are checked for shape, field by field and per role
 * (role-shapes.ts), not cast. A message that fails is dropped by the receiver (and logged with
 * what is wrong), never trusted.
 */

/** How our guards say a misfit: an absent field is missing ("init.queuePolicy is missing"). */
const said = (found: Misfit | undefined): string | undefined =>
  found === undefined ? undefined : found.absent ? `${found.path} is missing` : `${found.path} ${found.wrong}`;

const REQUEST_KINDS: ReadonlySet<string> = new Set<RequestKind>([
  'status',
  'gather',
  'digest',
  'versions',
  'lastWrites',
]);
export const isRequestKind = (value: unknown): value is RequestKind =>
  typeof value === 'string' && REQUEST_KINDS.has(value);

const counters = roleShape('counters');
const report = roleShape('report');
const optionalText = optional(text);

/** The value a reply carries must fit its kind: counters and reports by their role, every field. */
const REPLY_VALUE: Record<RequestKind, Check> = {
  status: counters,
  gather: (value, path) =>
    isRecord(value)
      ? (report(value.report, `${path}.report`) ?? resourcesShape(value.resources, `${path}.resources`))
      : misfit(value, path, 'an object'),
  digest: digestShape,
  versions: versionsShape,
  lastWrites: lastWritesShape,
};

/** The first thing wrong with a message a child sent, by its path ("reply.value.head is missing"), or nothing. */
export function childMessageProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the message is not an object';
  const { type } = value;
  switch (type) {
    case 'booted':
      return said(count(value.pid, 'booted.pid'));
    case 'ready':
      return said(count(value.pid, 'ready.pid') ?? optional(count)(value.port, 'ready.port'));
    case 'progress':
      return said(counters(value.counters, 'progress.counters') ?? optionalText(value.member, 'progress.member'));
    case 'reply':
    case 'refused':
      if (!isRequestKind(value.kind)) return `${type}.kind is not a request kind`;
      return said(
        count(value.id, `${type}.id`) ??
          (type === 'reply'
            ? REPLY_VALUE[value.kind](value.value, 'reply.value')
            : text(value.message, 'refused.message')),
      );
    case 'done':
      return said(count(value.published, 'done.published'));
    case 'ended':
      return said(text(value.reason, 'ended.reason') ?? optionalText(value.member, 'ended.member'));
    case 'fatal':
      return said(text(value.message, 'fatal.message'));
    default:
      return `its type ${JSON.stringify(type) ?? 'undefined'} is not one a child sends`;
  }
}

export const isChildMessage = (value: unknown): value is ChildMessage => childMessageProblem(value) === undefined;

/** What is wrong with an init message (every field of its role's init: "init.queuePolicy is missing"), or nothing. */
export const initProblem = (value: unknown): string | undefined => said(roleShape('init')(value, 'init'));

export const isChildInit = (value: unknown): value is ChildInit => initProblem(value) === undefined;

const fits = (check: Check, value: unknown): boolean => check(value, '') === undefined;

export function isOrchestratorCommand(value: unknown): value is OrchestratorCommand {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'start':
      return typeof value.durationMs === 'number' && Number.isFinite(value.durationMs);
    case 'request':
      return fits(count, value.id) && isRequestKind(value.kind) && fits(optionalText, value.member);
    case 'phase':
      return typeof value.phase === 'string';
    case 'endSubscriber':
      return typeof value.name === 'string' && typeof value.reason === 'string';
    case 'shape':
      return fits(linkShape, value.up) && fits(linkShape, value.down);
    case 'brokerLost':
      return fits(optionalText, value.member);
    case 'ending':
    case 'reset':
    case 'stop':
      return true;
    default:
      return false;
  }
}
