import { Role, type ConsumerInit } from '@state-divergence/protocol';
import { connectToBroker, runChild, wallClockMs } from '@state-divergence/runtime';
import { LatencyLog } from './latency-log.js';
import { LocalCopy } from './local-copy.js';

await runChild<ConsumerInit>(async ({ init, logger, send }) => {
  const copy = new LocalCopy();
  const latency = new LatencyLog();
  const session = await connectToBroker(init.broker, { role: Role.subscriber, name: init.name }, logger);
  let applied = 0;
  let lastOffset = session.welcome.headOffset;
  let endedEarly: string | null = null;
  logger.info({ headOffset: lastOffset }, 'subscribed');

  // A subscription that ends before the run does is recorded as such, so a broken
  // connection is never mistaken for dropped events.
  const endEarly = (reason: string): void => {
    if (endedEarly !== null) return;
    endedEarly = reason;
    logger.warn({ reason, applied, lastOffset }, 'subscription ended early');
    send({ type: 'ended', reason });
  };

  void (async () => {
    for await (const frame of session.frames) {
      if (frame.type === 'event') {
        copy.apply(frame.change);
        latency.record(wallClockMs(), frame.change.publishedAt);
        applied += 1;
        lastOffset = frame.offset;
      } else if (frame.type === 'error') {
        endEarly(`broker error ${frame.code}: ${frame.message}`);
        return;
      } else {
        endEarly(`unexpected ${frame.type} frame from the broker`);
        return;
      }
    }
    endEarly('the broker closed the stream');
  })().catch((error: unknown) => endEarly(`stream failed: ${(error as Error)?.message ?? String(error)}`));

  return {
    counters: () => ({ role: 'consumer', applied, lastOffset, endedEarly }),
    gather: () => ({ role: 'consumer', applied, lastOffset, latency: latency.samples(), entries: copy.toTriples(), endedEarly }),
    close: () => session.close(),
  };
});
