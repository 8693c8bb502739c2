import type { Redis } from 'ioredis';
import type { Sink } from '../target-system.js';

/**
 * Reports a connection's life to the sink: each loss once (ioredis says `close` and then
 * `end`/`reconnecting` for one loss), each return after a loss, each error. ioredis reconnects
 * and resubscribes by itself; `onReturn` runs once the connection is ready again.
 */
export function reportConnection(client: Redis, sink: Sink, onReturn: () => void = () => {}): void {
  let ready = false;
  let lost = false;
  client.on('ready', () => {
    if (lost) {
      lost = false;
      sink.signal('reconnect');
      onReturn();
    }
    ready = true;
  });
  client.on('close', () => {
    if (ready && !lost) {
      lost = true;
      sink.signal('disconnect');
    }
  });
  client.on('error', (error: Error) => sink.signal('error', error.message));
}
