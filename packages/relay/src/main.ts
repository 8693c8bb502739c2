import { runChild } from '@state-divergence/runtime';
import { Relay } from './relay.js';
import { TcpRelay } from './tcp-relay.js';

/**
 * The fault relay between one client and its server (see Relay for our QUIC over UDP, TcpRelay for
 * a real system's TCP): never frozen, shaped by the orchestrator's `shape` commands (a TCP one also
 * by `reset`), reporting what each direction forwarded, held and dropped.
 */
await runChild('relay', async ({ init, logger }) => {
  const relay = init.transport === 'tcp' ? await TcpRelay.open(init, logger) : await Relay.open(init, logger);
  return {
    port: relay.port,
    shape: (up, down) => relay.shape(up, down),
    ...(relay instanceof TcpRelay && { reset: () => relay.reset() }),
    counters: () => relay.counters(),
    gather: () => relay.report(),
    close: async () => relay.close(),
  };
});
