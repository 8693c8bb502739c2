import type { Sink } from './target-system.js';

/** How long a careful idiom waits before trying a relist that failed (the server down) again. */
export const RELIST_RETRY_MS = 500;

/**
 * Relists one after another, never two at once, for the careful idioms that relist after a
 * reconnect (core NATS, Redis pub/sub). One that fails signals `error` and is tried again while
 * the consumer is open: the changes it holds back keep waiting, since applied now they would land
 * on a stale copy. `settled` resolves once every relist queued so far has run or failed.
 */
export function serialRelister(
  relist: (first: boolean) => Promise<void>,
  sink: Sink,
  isOpen: () => boolean,
): { queue(first: boolean): void; settled(): Promise<void> } {
  let chain = Promise.resolve();
  const queue = (first: boolean): void => {
    chain = chain
      .then(() => relist(first))
      .catch((error: Error) => {
        sink.signal('error', `relist: ${error.message}`);
        if (isOpen()) setTimeout(() => queue(first), RELIST_RETRY_MS);
      });
  };
  return { queue, settled: () => chain };
}
