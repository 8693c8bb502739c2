/**
 * A pool's messages pass the same guards as every child's (ipc/guards.ts): its init carries whole
 * consumer inits, at least one; a request, brokerLost, progress and ended may name a member, and
 * a member named must be a string.
 */
import {
  childMessageProblem,
  initProblem,
  isOrchestratorCommand,
  type ConsumerInit,
  type LogSettings,
  type PoolInit,
} from '@state-divergence/protocol';

const log: LogSettings = { level: 'info', file: null, mode: 'resync' };
const member = (name: string): ConsumerInit => ({
  role: 'consumer',
  name,
  broker: {
    host: '127.0.0.1',
    port: 4433,
    caPem: 'PEM',
    idleTimeoutMs: 30_000,
    datagramBytes: 1350,
    token: 'ab'.repeat(32),
  },
  subscribeWith: 'snapshot',
  detectGaps: true,
  resumable: false,
  checkpointDir: null,
  staleAfterMs: 750,
  log,
});
const pool: PoolInit = { role: 'pool', name: 'pool-1', members: [member('consumer-1'), member('consumer-2')], log };

test('a pool init is checked field by field, each member as a consumer init, and must host someone', () => {
  expect(initProblem(pool)).toBeUndefined();
  expect(initProblem({ ...pool, members: [] })).toBe('init.members is empty');
  expect(initProblem({ ...pool, members: undefined })).toBe('init.members is missing');
  const { detectGaps: _gone, ...broken } = member('consumer-2');
  expect(initProblem({ ...pool, members: [member('consumer-1'), broken] })).toBe(
    'init.members[1].detectGaps is missing',
  );
});

test('its own counters and report are checked; a member may be named on progress and ended, as a string', () => {
  const own = { role: 'pool', members: 2, ended: 0, applied: 800, cpuMicros: 1_200_000 };
  expect(childMessageProblem({ type: 'progress', counters: own })).toBeUndefined();
  expect(
    childMessageProblem({
      type: 'reply',
      id: 1,
      kind: 'gather',
      value: { report: { ...own, names: ['consumer-1', 'consumer-2'] }, resources: { cpuMs: 1, maxRssKb: 1 } },
    }),
  ).toBeUndefined();
  expect(childMessageProblem({ type: 'reply', id: 1, kind: 'status', value: { role: 'pool', members: 2 } })).toBe(
    'reply.value.ended is missing',
  );
  expect(childMessageProblem({ type: 'reply', id: 1, kind: 'status', value: { ...own, cpuMicros: undefined } })).toBe(
    'reply.value.cpuMicros is missing',
  );
  const counters = {
    role: 'consumer',
    applied: 1,
    lastOffset: 1,
    endedEarly: null,
    syncing: false,
    reconnects: 0,
    skippedRanges: [],
    coveredAfter: 0,
  };
  expect(childMessageProblem({ type: 'progress', counters, member: 'consumer-2' })).toBeUndefined();
  expect(childMessageProblem({ type: 'progress', counters, member: 2 })).toBe('progress.member is not a string');
  expect(childMessageProblem({ type: 'ended', reason: 'gone', member: 'consumer-2' })).toBeUndefined();
  expect(childMessageProblem({ type: 'ended', reason: 'gone', member: null })).toBe('ended.member is not a string');
});

test('a request and brokerLost may name a member; one that names it wrongly is no command', () => {
  expect(isOrchestratorCommand({ type: 'request', id: 3, kind: 'digest', member: 'consumer-1' })).toBe(true);
  expect(isOrchestratorCommand({ type: 'request', id: 3, kind: 'digest', member: 1 })).toBe(false);
  expect(isOrchestratorCommand({ type: 'brokerLost', member: 'consumer-1' })).toBe(true);
  expect(isOrchestratorCommand({ type: 'brokerLost' })).toBe(true);
  expect(isOrchestratorCommand({ type: 'brokerLost', member: ['consumer-1'] })).toBe(false);
});
