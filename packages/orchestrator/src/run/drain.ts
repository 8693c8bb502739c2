import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumerCounters } from '@state-divergence/protocol';
import type { DrainResult } from '../model/run-types.js';
import type { ChildHandle } from './child/child-handle.js';

const POLL_MS = 50;
const STATUS_TIMEOUT_MS = 2_000;

/**
 * Waits until every live consumer has applied everything the broker accepted
 * for it (its queue is empty and its last applied offset reached the last
 * offset queued for it), and the broker has read everything published.
 * Measured by polling, not a fixed sleep; bounded by `timeoutMs`.
 */
export async function drain(options: {
  broker: ChildHandle<'broker'>;
  consumers: Array<ChildHandle<'consumer'>>;
  /**
   * Changes published: the broker's head must reach it. null after a broker restart: a broker
   * without a log starts its offsets again, and a durable one never holds the changes the publisher
   * discarded (sent, never acknowledged), so no head can be compared with what was published.
   */
  published: number | null;
  timeoutMs: number;
  signal: AbortSignal;
  /** Told when a consumer could not answer `status` (a foreign one's contract failure). */
  failed?: (consumer: ChildHandle<'consumer'>, error: unknown) => void;
}): Promise<DrainResult> {
  const started = performance.now();
  let behind: Record<string, string> = {};
  for (;;) {
    behind = {};
    const broker = await options.broker.status(STATUS_TIMEOUT_MS);
    if (options.published !== null && broker.head < options.published)
      behind.broker = `read ${broker.head} of ${options.published} published changes`;
    await Promise.all(
      options.consumers.map(async (consumer) => {
        const queue = broker.subscribers[consumer.name];
        if (queue === undefined) return void (behind[consumer.name] = 'not subscribed at the broker');
        let counters: ConsumerCounters;
        try {
          counters = await consumer.status(STATUS_TIMEOUT_MS);
        } catch (error) {
          behind[consumer.name] = (error as Error).message;
          options.failed?.(consumer, error);
          return;
        }
        if (counters.endedEarly !== null) return; // nothing more will come; the report says why
        if (queue.queued > 0 || counters.lastOffset < queue.lastAccepted) {
          behind[consumer.name] =
            `at offset ${counters.lastOffset}, broker queued up to ${queue.lastAccepted} (${queue.queued} still ` +
            `queued)`;
        }
      }),
    );
    const ms = Math.round(performance.now() - started);
    if (Object.keys(behind).length === 0) return { complete: true, ms, behind };
    if (ms >= options.timeoutMs) return { complete: false, ms, behind };
    await sleep(POLL_MS, undefined, { signal: options.signal });
  }
}
