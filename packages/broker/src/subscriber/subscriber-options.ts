import type { BrokerInit, QueuePolicy } from '@state-divergence/protocol';
import type { Logger } from '@state-divergence/runtime';
import type { CompactedTable } from '../compacted-table.js';
import type { LogReader } from '../log-port.js';
import type { SubscriberStats } from './subscriber-stats.js';

/** Its queue's capacity, batch size and hold are the broker's init's (protocol's settings.ts declares the knobs). */
export interface SubscriberOptions extends Pick<BrokerInit, 'queueCapacity' | 'batchMaxEvents' | 'coalesceMs'> {
  name: string;
  /** What a full queue means (protocol's QueuePolicy): under `block` the Topic waited for room before offering. */
  queuePolicy: QueuePolicy;
  table: CompactedTable;
  /** The durable log (a broker that keeps one): replays, RESUMEs and back-fills read it. */
  log: LogReader | undefined;
  headOffset: () => number;
  /** This name's figures, kept across its subscriptions. */
  stats: SubscriberStats;
  write: (bytes: Uint8Array) => Promise<void>;
  /**
   * `disconnect` policy: writes this ERROR frame after whatever is in flight, then
   * closes the stream and stops reading it. Never awaited: the peer may be frozen.
   */
  farewell: (error: Buffer) => void;
  /** Called whenever the queue shrinks, so a paused publisher read can resume. */
  onRoom: () => void;
  /**
   * Called when this writer's turn is due (its write is waiting for the next turn of the event
   * loop) and half its queue is waiting with it: the publisher's reader must let that turn come
   * before it offers more (Topic.writersTurn).
   */
  onTurnDue: () => void;
  /** Called once when the subscription ends, whatever the reason: the name is free again. */
  onEnd: () => void;
  logger: Logger;
}
