/**
 * The publisher's writes keep nothing once written. The soak (npm run soak) found the publisher's
 * RSS climbing ~1.3 MiB a minute at 400 changes/s: each write raced its completion against a
 * promise of the session's drop, pending for the session's whole life, and every race left a
 * reaction on it (a heap snapshot 4 minutes apart: 22,113 more promises, as many closures).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AckFrame, Frame } from '@state-divergence/protocol';
import { createLogger } from '@state-divergence/runtime';
import { BrokerLink } from '@state-divergence/publisher/internal';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const logger = createLogger('test', { level: 'silent', file: null, mode: null });

/** A session to a broker that takes every write at once and never sends a frame or drops. */
function quietSession() {
  async function* frames(): AsyncGenerator<Frame> {
    await new Promise<never>(() => {});
  }
  return {
    welcome: { type: 'welcome' as const, headOffset: 0, epoch: 1 },
    frames: frames(),
    write: async () => {},
    close: async () => {},
  };
}

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

test('100,000 writes on one live session leave the heap as it was (each used to keep a promise reaction until the session dropped)', async () => {
  const link = BrokerLink.over(quietSession(), {
    endpoint: { host: '127.0.0.1', port: 1, idleTimeoutMs: 10_000 } as never,
    name: 'publisher',
    logger,
    ending: () => false,
    onAck: (_frame: AckFrame) => {},
    onReconnected: () => {},
    onFatal: (error) => {
      throw error;
    },
  });
  const bytes = new Uint8Array(64);
  for (let i = 0; i < 1_000; i++) await link.write(bytes);
  const before = heapAfterGc();
  for (let i = 0; i < 100_000; i++) await link.write(bytes);
  const grown = heapAfterGc() - before;
  // Kept: ~250 bytes a write, 25 MB in all. Not kept: the heap's own noise, well under 2 MB.
  expect(grown).toBeLessThan(2 * 1024 * 1024);
});
