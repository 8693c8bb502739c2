import { encodePublish, Role } from '@state-divergence/protocol';
import { errorMessage, runChild, wallClockMs } from '@state-divergence/runtime';
import { connectToBroker, type BrokerSession } from '@state-divergence/runtime/quic';
import { Authority } from './authority.js';
import { pace } from './pacer.js';

/**
 * The broker never sends a publisher anything after WELCOME except an ERROR
 * frame before it closes the stream: either way publishing cannot go on.
 */
function watchRefusal(session: BrokerSession, state: () => { done: boolean; closing: boolean; ending: boolean }, fail: (error: unknown) => void): void {
  void (async () => {
    for await (const frame of session.frames) {
      if (frame.type === 'error') throw new Error(`broker refused publishing: ${frame.message}`);
    }
    if (!state().done) throw new Error('the broker closed the publishing stream');
  })().catch((error: unknown) => {
    const { closing, ending } = state();
    if (!closing && !ending) fail(error); // our own close, or the run's end, closed it
  });
}

await runChild('publisher', async ({ init, logger, send, exit, ending }) => {
  const authority = new Authority(init.keys, init.seed, init.payload, init.deleteRatio);
  const session = await connectToBroker(init.broker, { role: Role.publisher, name: init.name }, logger);
  let published = 0;
  let done = false;
  let startedAt = 0;
  let stoppedAt = 0;
  let blockedMs = 0;
  let closing = false;

  watchRefusal(session, () => ({ done, closing, ending: ending() }), (error) => {
    logger.error({ err: error }, 'publishing stream failed');
    send({ type: 'fatal', message: errorMessage(error) });
    void exit(1);
  });

  const sendBatch = (count: number): Promise<void> => {
    const now = wallClockMs();
    const frames = Array.from({ length: count }, () => encodePublish(authority.next(now)));
    published += count;
    return session.write(count === 1 ? frames[0]! : Buffer.concat(frames));
  };

  return {
    start: (durationMs) => {
      startedAt = wallClockMs();
      logger.info({ rate: init.rate, durationMs, keys: init.keys }, 'publishing started');
      pace({ rate: init.rate, durationMs, sendBatch, maxBatch: 256, maxLagMs: 1000, tickMs: 20 }).then(
        (result) => {
          stoppedAt = wallClockMs();
          blockedMs = result.blockedMs;
          done = true;
          const achievedRate = result.published / ((stoppedAt - startedAt) / 1000);
          logger.info({ ...result, achievedRate, lastVersion: authority.lastVersion }, 'publishing stopped');
          send({ type: 'done', published: result.published });
        },
        (error: unknown) => {
          if (closing) return; // stopped mid-publish by our own shutdown
          logger.error({ err: error }, 'publishing failed');
          send({ type: 'fatal', message: `publishing failed: ${errorMessage(error)}` });
          void exit(1);
        },
      );
    },
    versions: () => authority.versions.map((version, key) => (authority.deleted[key] === 1 ? 0 : version)),
    counters: () => ({ role: 'publisher', published, done }),
    gather: () => ({
      role: 'publisher',
      published,
      authority: { versions: Array.from(authority.versions), values: Array.from(authority.values), deleted: Array.from(authority.deleted) },
      history: authority.history.snapshot(),
      startedAt,
      stoppedAt,
      blockedMs,
      discarded: [],
      acknowledgedLost: 0,
      reconnects: 0,
      outageMs: 0,
    }),
    close: () => {
      closing = true;
      return session.close();
    },
  };
});
