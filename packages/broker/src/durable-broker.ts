import {
  FRAME_HEADER_LENGTH,
  FrameDecoder,
  FrameType,
  type BrokerInit,
  type Change,
  type DurableReport,
  type FsyncPolicy,
} from '@state-divergence/protocol';
import { DurableLog } from './log/index.js';
import type { BrokerLog } from './log-port.js';
import type { Topic } from './topic.js';

/**
 * A broker whose init names a log (`durableLog`) opens it at start: a directory the log refuses
 * (another run's, another fsync policy) fails the broker with the log's one line.
 */
export async function openLog(init: BrokerInit): Promise<BrokerLog | undefined> {
  return init.durableLog === null ? undefined : DurableLog.open(init.durableLog);
}

/** The change a stored PUBLISH body carries (the log keeps bodies verbatim; the decoder judges them as it judged the
 * PUBLISH). */
function changeOf(body: Buffer): Change {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + body.length);
  frame.writeUInt32BE(1 + body.length, 0);
  frame.writeUInt8(FrameType.publish, 4);
  body.copy(frame, FRAME_HEADER_LENGTH);
  const decoder = new FrameDecoder();
  decoder.push(frame);
  const decoded = decoder.next();
  if (decoded?.type !== 'publish') throw new Error('the log holds a record that is not a PUBLISH body');
  return decoded.change;
}

/**
 * A restarted durable broker continues where its log ends: the compacted table rebuilt from each
 * key's last write, the head and the highest version the log's (a fresh log: all empty).
 */
export function restoreFromLog(topic: Topic, log: BrokerLog): void {
  const lastWrites = log.latestWrites().map(({ offset, body }) => ({ offset, change: changeOf(body), body }));
  topic.restore(lastWrites, log.recovery.head, log.recovery.highestVersion);
}

/**
 * BrokerReport.durable: what the log cost in this incarnation. What it replayed is in each
 * subscriber's entry only: a total here, over every name served (a rogue client's too), was a
 * second figure for what the run's cost sums over its consumers, and the two disagreed.
 */
export function durableReport(log: BrokerLog, fsync: FsyncPolicy): DurableReport {
  const { logBytes, fsyncs } = log.stats();
  return { fsync, logBytes, fsyncs, oldest: log.oldest };
}
