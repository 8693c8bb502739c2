import { encodeDigestRequest, encodeResume, Role, StartKind, type DigestFrame } from '@state-divergence/protocol';
import { errorMessage, runChild, withDeadline } from '@state-divergence/runtime';
import { connectToBroker } from '@state-divergence/runtime/quic';
import { StreamFollower } from './stream-follower.js';

const DIGEST_TIMEOUT_MS = 5_000;

await runChild('consumer', async ({ init, logger, send }) => {
  const snapshot = init.subscribeWith === 'snapshot';
  const session = await connectToBroker(
    init.broker,
    { role: Role.subscriber, name: init.name, start: snapshot ? StartKind.snapshot : StartKind.latest },
    logger,
  );
  let endedEarly: string | null = null;
  let digestWaiter: ((frame: DigestFrame) => void) | undefined;
  const follower = new StreamFollower({
    detectGaps: init.detectGaps,
    startOffset: session.welcome.headOffset,
    awaitingSnapshot: snapshot,
    requestResume: (fromOffset) => {
      logger.info({ fromOffset }, 'gap in offsets; asking for a resume');
      session.write(encodeResume(fromOffset)).catch(() => {});
    },
    onDigest: (frame) => digestWaiter?.(frame),
  });
  logger.info({ headOffset: session.welcome.headOffset, subscribeWith: init.subscribeWith, detectGaps: init.detectGaps }, 'subscribed');

  // A subscription that ends before the run does is recorded as such, so a broken
  // connection is never mistaken for dropped events.
  let closing = false;
  const endEarly = (reason: string): void => {
    if (endedEarly !== null || closing) return; // our own shutdown is not an early end
    endedEarly = reason;
    logger.warn({ reason, applied: follower.applied, lastOffset: follower.lastOffset }, 'subscription ended early');
    send({ type: 'ended', reason });
  };

  void (async () => {
    for await (const frame of session.frames) {
      if (frame.type === 'error') return endEarly(`broker error ${frame.code}: ${frame.message}`);
      const problem = follower.handle(frame);
      if (problem !== undefined) return endEarly(problem);
    }
    endEarly('the broker closed the stream');
  })().catch((error: unknown) => endEarly(`stream failed: ${errorMessage(error)}`));

  return {
    versions: () => follower.copy.versions(),
    counters: () => ({ role: 'consumer', applied: follower.applied, lastOffset: follower.lastOffset, endedEarly, syncing: follower.syncing }),
    gather: () => ({
      role: 'consumer',
      applied: follower.applied,
      lastOffset: follower.lastOffset,
      coveredAfter: snapshot ? 0 : session.welcome.headOffset,
      latency: follower.latency.samples(),
      lags: follower.lags,
      resumes: follower.resumes,
      syncs: follower.syncs,
      entries: follower.copy.toTriples(),
      endedEarly,
    }),
    // The only way a consumer can learn it is wrong without trusting offsets.
    digest: async () => {
      if (endedEarly !== null) throw new Error(`its subscription had ended (${endedEarly})`);
      const reply = new Promise<DigestFrame>((resolve) => (digestWaiter = resolve));
      await session.write(encodeDigestRequest());
      const frame = await withDeadline(reply, DIGEST_TIMEOUT_MS, `the broker sent no DIGEST within ${DIGEST_TIMEOUT_MS / 1000} s`);
      const local = follower.copy.digest().toString();
      // The broker answers after everything it queued for us, so its offset is ours unless it dropped events for us.
      const verdict = { match: local === frame.digest, local, broker: frame.digest, brokerOffset: frame.offset, localOffset: follower.lastOffset };
      logger.info(verdict, verdict.match ? 'digest matches the broker' : 'digest DIFFERS from the broker: local copy is wrong');
      return verdict;
    },
    close: () => {
      closing = true;
      return session.close();
    },
  };
});
