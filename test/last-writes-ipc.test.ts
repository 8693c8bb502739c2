/**
 * The `lastWrites` request over IPC: only the broker serves it (others refuse,
 * as they refuse a digest they cannot make), and a reply is accepted only if
 * its value has the shape RequestReplies says, since the receiver never casts.
 */
import pino from 'pino';
import { isChildMessage, type ChildMessage, type LastWrites } from '@state-divergence/protocol';
import type { RoleHandlers } from '@state-divergence/runtime';
import { serveRequest } from '@state-divergence/runtime/internal';

const logger = pino({ level: 'silent' });
const answer: LastWrites = {
  head: 7,
  offsets: new Float64Array([3, 0, 7]),
  dropped: {
    'consumer-1': [
      [2, 4],
      [6, 6],
    ],
    'consumer-2': [],
  },
  disconnectedAt: { 'consumer-1': 6 },
};
const handlers = (lastWrites?: () => LastWrites): RoleHandlers => ({
  counters: () => ({ role: 'publisher', published: 0, done: false, cpuMicros: 0 }),
  gather: () => ({
    role: 'publisher',
    published: 0,
    authority: { versions: [], values: [], deleted: [] },
    history: { keys: new Uint32Array(), values: new Uint32Array(), deleted: new Uint8Array() },
    startedAt: 0,
    stoppedAt: 0,
    blockedMs: 0,
    discarded: [],
    acknowledgedLost: 0,
    reconnects: 0,
    outageMs: 0,
  }),
  close: async () => {},
  ...(lastWrites ? { lastWrites } : {}),
});

function serve(role: RoleHandlers): ChildMessage[] {
  const sent: ChildMessage[] = [];
  serveRequest(role, { type: 'request', id: 4, kind: 'lastWrites' }, (message) => sent.push(message), logger);
  return sent;
}

test('a role without lastWrites refuses the request; the broker answers it', () => {
  expect(serve(handlers())).toEqual([
    { type: 'refused', id: 4, kind: 'lastWrites', message: expect.stringContaining('only the broker') },
  ]);
  expect(serve(handlers(() => answer))).toEqual([{ type: 'reply', id: 4, kind: 'lastWrites', value: answer }]);
});

test('the guard accepts a lastWrites reply of the right shape and nothing else', () => {
  const reply = (value: unknown) => ({ type: 'reply', id: 1, kind: 'lastWrites', value });
  expect(isChildMessage(reply(answer))).toBe(true);
  expect(isChildMessage(reply({ ...answer, offsets: [3, 0, 7] }))).toBe(false);
  expect(isChildMessage(reply({ ...answer, dropped: { 'consumer-1': [[2]] } }))).toBe(false);
  expect(isChildMessage(reply({ ...answer, dropped: { 'consumer-1': [[2, '4']] } }))).toBe(false);
  expect(isChildMessage(reply({ ...answer, disconnectedAt: { 'consumer-1': null } }))).toBe(false);
  expect(isChildMessage(reply({ offsets: answer.offsets, dropped: {}, disconnectedAt: {} }))).toBe(false); // no head
  expect(isChildMessage({ type: 'refused', id: 1, kind: 'lastWrites', message: 'no' })).toBe(true);
});
