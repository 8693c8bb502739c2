import type { NatsConnection } from '@nats-io/transport-node';
import type { Sink } from '../target-system.js';

/**
 * Reports the connection's status events to the sink until it closes; `onReconnect` runs after
 * each reconnect (the client has resubscribed by then: it sends its subscriptions first).
 */
export function reportStatus(connection: NatsConnection, sink: Sink, onReconnect: () => void = () => {}): void {
  void (async () => {
    for await (const status of connection.status()) {
      switch (status.type) {
        case 'disconnect':
          sink.signal('disconnect', status.server);
          break;
        case 'reconnect':
          sink.signal('reconnect', status.server);
          onReconnect();
          break;
        case 'slowConsumer':
          sink.signal('slow-consumer', `${status.pending} pending`);
          break;
        case 'error':
          sink.signal('error', status.error.message);
          break;
        default:
      }
    }
  })().catch(() => {});
}
