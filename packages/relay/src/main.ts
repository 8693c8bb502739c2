import { runChild } from '@state-divergence/runtime';
import { Relay } from './relay.js';

/**
 * The fault relay between one client and the broker (see Relay): never frozen, shaped by the
 * orchestrator's `shape` commands, reporting what each direction forwarded and dropped.
 */
await runChild('relay', async ({ init, logger }) => {
  const relay = await Relay.open(init, logger);
  return {
    port: relay.port,
    shape: (up, down) => relay.shape(up, down),
    counters: () => relay.counters(),
    gather: () => relay.report(),
    close: async () => relay.close(),
  };
});
