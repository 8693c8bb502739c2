import { encodeDigestRequest, encodeResume, Role, StartKind, type DigestFrame, type DigestVerdict } from '@state-divergence/protocol';
import { currentLogPhase, errorMessage, runChild, withDeadline, type Logger } from '@state-divergence/runtime';
import { connectToBroker, type BrokerSession } from '@state-divergence/runtime/quic';
import { StreamFollower } from './stream-follower.js';

const DIGEST_TIMEOUT_MS = 5_000;

/**
 * Feeds every frame of the subscription to the follower. A subscription that
 * ends before the run does is reported through `endEarly`, so a broken
 * connection is never mistaken for dropped events.
 */
function follow(session: BrokerSession, follower: StreamFollower, endEarly: (reason: string) => void): void {
  void (async () => {
    for await (const frame of session.frames) {
      if (frame.type === 'error') return endEarly(`broker error ${frame.code}: ${frame.message}`);
      const problem = follower.handle(frame);
      if (problem !== undefined) return endEarly(problem);
    }
    endEarly('the broker closed the stream');
  })().catch((error: unknown) => endEarly(`stream failed: ${errorMessage(error)}`));
}

/** The only way a consumer can learn it is wrong without trusting offsets: ask the broker for its digest. */
async function compareDigest(session: BrokerSession, follower: StreamFollower, nextDigest: () => Promise<DigestFrame>, logger: Logger): Promise<DigestVerdict> {
  const reply = nextDigest(); // armed before asking, so the answer cannot slip past
  await session.write(encodeDigestRequest());
  const frame = await withDeadline(reply, DIGEST_TIMEOUT_MS, `the broker sent no DIGEST within ${DIGEST_TIMEOUT_MS / 1000} s`);
  const local = follower.copy.digest().toString();
  // The broker answers after everything it queued for us, so its offset is ours unless it dropped events for us.
  const verdict = { match: local === frame.digest, local, broker: frame.digest, brokerOffset: frame.offset, localOffset: follower.lastOffset };
  logger.info(verdict, verdict.match ? 'digest matches the broker' : 'digest DIFFERS from the broker: local copy is wrong');
  return verdict;
}

await runChild('consumer', async ({ init, logger, send }) => {
  const snapshot = init.subscribeWith === 'snapshot';
  const session = await connectToBroker(init.broker, { role: Role.subscriber, name: init.name, start: snapshot ? StartKind.snapshot : StartKind.latest }, logger);
  let endedEarly: string | null = null;
  let closing = false;
  let digestWaiter: ((frame: DigestFrame) => void) | undefined;
  const nextDigest = () => new Promise<DigestFrame>((resolve) => (digestWaiter = resolve));
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
  follow(session, follower, (reason) => {
    if (endedEarly !== null || closing || currentLogPhase() === 'teardown') return; // the run's end is not an early end
    endedEarly = reason;
    logger.warn({ reason, applied: follower.applied, lastOffset: follower.lastOffset }, 'subscription ended early');
    send({ type: 'ended', reason });
  });

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
    digest: async () => {
      if (endedEarly !== null) throw new Error(`its subscription had ended (${endedEarly})`);
      return compareDigest(session, follower, nextDigest, logger);
    },
    close: () => {
      closing = true;
      return session.close();
    },
  };
});
