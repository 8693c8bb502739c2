/**
 * What each mode does is one row of protocol's modes.ts, read by the broker, the consumers'
 * init, the plan's steps and the live view. Here: the broker's queue policy, the init and the
 * report's names; the live view's reading of `subscribeWith` (goneConsumer) is in
 * missed-agreement.test.ts.
 */
import {
  HEARTBEAT_MS,
  MODE_TABLE,
  MODES,
  queuePolicyOf,
  throttlesPublisher,
  type BrokerEndpoint,
  type DurableSettings,
  type LogSettings,
} from '@state-divergence/protocol';
import { Topic } from '@state-divergence/broker/internal';
import { brokerFeatures, consumerInit } from '@state-divergence/orchestrator';
import { MODE_LABELS, MODE_SHORT } from '@state-divergence/orchestrator/internal';

const endpoint: BrokerEndpoint = {
  host: '127.0.0.1',
  port: 1,
  caPem: '',
  idleTimeoutMs: 1,
  datagramBytes: 1350,
  token: '',
};
const log: LogSettings = { level: 'silent', file: null, mode: null };

test("the modes are the table's rows, in its order", () => {
  expect(MODES).toEqual(['lossy', 'lossless', 'resync', 'durable']);
  expect(Object.keys(MODE_TABLE)).toEqual(MODES);
});

test("the broker's queue policy is the row's, or --overflow's where the row leaves it to the flag", () => {
  // A Topic under `backfill` needs a log to back-fill from (test/backfill.test.ts builds it with one).
  expect(
    MODES.filter((m) => !MODE_TABLE[m].keepsLog).map(
      (m) => new Topic(brokerFeatures(m, 'disconnect', null).queuePolicy).queuePolicy,
    ),
  ).toEqual(['disconnect', 'block', 'resync']);
  expect(queuePolicyOf('durable', 'disconnect')).toBe('backfill');
  expect(queuePolicyOf('lossy', 'drop-oldest')).toBe('drop-oldest');
  expect(MODES.filter(throttlesPublisher)).toEqual(['lossless']);
});

const logAt: DurableSettings = { dir: '/tmp/log', fsync: 'periodic', retention: null };
/** Each mode's broker features, given a log exactly where its row keeps one. */
const features = MODES.map((m) => brokerFeatures(m, 'drop-new', MODE_TABLE[m].keepsLog ? logAt : null));

test('the broker is sent features, not a mode: a log only where the row keeps one, a heartbeat only where it has one', () => {
  expect(features.map((f) => [f.queuePolicy, f.durableLog, f.heartbeatMs])).toEqual([
    ['drop-new', null, null],
    ['block', null, null],
    ['resync', null, HEARTBEAT_MS],
    ['backfill', logAt, HEARTBEAT_MS],
  ]);
  // What used to reach the broker as a mode and a directory that disagreed cannot be asked for.
  expect(() => brokerFeatures('durable', 'drop-new', null)).toThrow(
    "mode durable's broker was given no directory for its log",
  );
  expect(() => brokerFeatures('resync', 'drop-new', logAt)).toThrow(
    "mode resync's broker was given a log it does not keep",
  );
});

test('a consumer resumes by offset and keeps a checkpoint only where the broker keeps a log', () => {
  const inits = MODES.map((m) => consumerInit('consumer-1', endpoint, m, log, '/tmp/checkpoints/consumer-1'));
  expect(inits.map((i) => [i.resumable, i.checkpointDir])).toEqual([
    [false, null],
    [false, null],
    [false, null],
    [true, '/tmp/checkpoints/consumer-1'],
  ]);
});

test("a consumer subscribes as its mode's row says", () => {
  expect(
    MODES.map((m) => consumerInit('consumer-1', endpoint, m, log)).map((i) => [i.subscribeWith, i.detectGaps]),
  ).toEqual([
    ['latest', false],
    ['latest', false],
    ['snapshot', true],
    ['snapshot', true],
  ]);
});

test("the report's names for the columns are the rows'", () => {
  expect(MODE_SHORT).toEqual({ lossy: 'at-most-once', lossless: 'lossless', resync: 'resync', durable: 'durable' });
  expect(MODE_LABELS.resync).toBe('resync (snapshot + lag signal + delta)');
});
