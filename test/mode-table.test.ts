/**
 * What each mode does is one row of protocol's modes.ts, read by the broker, the consumers'
 * init, the plan's steps and the live view. Here: the broker's queue policy, the init and the
 * report's names; the live view's reading of `subscribeWith` (goneConsumer) is in
 * missed-agreement.test.ts.
 */
import { MODE_TABLE, MODES, queuePolicyOf, throttlesPublisher, type BrokerEndpoint, type LogSettings } from '@state-divergence/protocol';
import { Topic } from '@state-divergence/broker/internal';
import { consumerInit } from '@state-divergence/orchestrator';
import { MODE_LABELS, MODE_SHORT } from '@state-divergence/orchestrator/internal';

const endpoint: BrokerEndpoint = { host: '127.0.0.1', port: 1, caPem: '', idleTimeoutMs: 1, datagramBytes: 1350, token: '' };
const log: LogSettings = { level: 'silent', file: null, mode: null };

test('the modes are the table\'s rows, in its order', () => {
  expect(MODES).toEqual(['lossy', 'lossless', 'resync', 'durable']);
  expect(Object.keys(MODE_TABLE)).toEqual(MODES);
});

test('the broker\'s queue policy is the row\'s, or --overflow\'s where the row leaves it to the flag', () => {
  // A Topic under `backfill` needs a log to back-fill from (test/backfill.test.ts builds it with one).
  expect(MODES.filter((m) => !MODE_TABLE[m].durable).map((m) => new Topic(m, 'disconnect').queuePolicy)).toEqual(['disconnect', 'block', 'resync']);
  expect(queuePolicyOf('durable', 'disconnect')).toBe('backfill');
  expect(queuePolicyOf('lossy', 'drop-oldest')).toBe('drop-oldest');
  expect(MODES.filter(throttlesPublisher)).toEqual(['lossless']);
});

test('a consumer subscribes as its mode\'s row says', () => {
  expect(MODES.map((m) => consumerInit('consumer-1', endpoint, m, log)).map((i) => [i.subscribeWith, i.detectGaps])).toEqual([
    ['latest', false],
    ['latest', false],
    ['snapshot', true],
    ['snapshot', true],
  ]);
});

test('the report\'s names for the columns are the rows\'', () => {
  expect(MODE_SHORT).toEqual({ lossy: 'at-most-once', lossless: 'lossless', resync: 'resync', durable: 'durable' });
  expect(MODE_LABELS.resync).toBe('resync (snapshot + lag signal + delta)');
});
