import { encodeDigestRequest, encodeResume, Role, StartKind, type DigestFrame, type DigestVerdict } from '@state-divergence/protocol';
import { runChild, withDeadline, type Logger } from '@state-divergence/runtime';
import { connectToBroker } from '@state-divergence/runtime/quic';
import { StreamFollower } from './stream-follower.js';
import { Subscription } from './subscription.js';

const DIGEST_TIMEOUT_MS = 5_000;

/** The only way a consumer can learn it is wrong without trusting offsets: ask the broker for its digest. */
async function compareDigest(subscription: Subscription, follower: StreamFollower, nextDigest: () => Promise<DigestFrame>, logger: Logger): Promise<DigestVerdict> {
  const reply = nextDigest(); // armed before asking, so the answer cannot slip past
  await subscription.write(encodeDigestRequest());
  const frame = await withDeadline(reply, DIGEST_TIMEOUT_MS, `the broker sent no DIGEST within ${DIGEST_TIMEOUT_MS / 1000} s`);
  const local = follower.copy.digest().toString();
  // The broker answers right after the events it queued for us before the request, so its offset is ours unless it dropped events for us.
  const verdict = { match: local === frame.digest, local, broker: frame.digest, brokerOffset: frame.offset, localOffset: follower.lastOffset };
  logger.info(verdict, verdict.match ? 'digest matches the broker' : 'digest DIFFERS from the broker: local copy is wrong');
  return verdict;
}

await runChild('consumer', async ({ init, logger, send }) => {
  const snapshot = init.subscribeWith === 'snapshot';
  const session = await connectToBroker(init.broker, { role: Role.subscriber, name: init.name, start: snapshot ? StartKind.snapshot : StartKind.latest }, logger);
  let endedEarly: string | null = null;
  let digestWaiter: ((frame: DigestFrame) => void) | undefined;
  const nextDigest = () => new Promise<DigestFrame>((resolve) => (digestWaiter = resolve));
  const follower = new StreamFollower({
    detectGaps: init.detectGaps,
    startOffset: session.welcome.headOffset,
    awaitingSnapshot: snapshot,
    requestResume: (fromOffset) => {
      logger.info({ fromOffset }, 'gap in offsets; asking for a resume');
      subscription.write(encodeResume(fromOffset)).catch(() => {});
    },
    onDigest: (frame) => digestWaiter?.(frame),
  });
  logger.info({ headOffset: session.welcome.headOffset, subscribeWith: init.subscribeWith, detectGaps: init.detectGaps }, 'subscribed');
  const subscription = new Subscription(session, follower, {
    endpoint: init.broker,
    name: init.name,
    logger,
    onEnd: (reason) => {
      endedEarly = reason;
      logger.warn({ reason, applied: follower.applied, lastOffset: follower.lastOffset }, 'subscription ended early');
      send({ type: 'ended', reason });
    },
  });

  return {
    versions: () => follower.copy.versions(),
    counters: () => ({
      role: 'consumer',
      applied: follower.applied,
      lastOffset: follower.lastOffset,
      endedEarly,
      syncing: follower.syncing,
      reconnects: subscription.reconnects,
      skippedRanges: subscription.skippedRanges,
      coveredAfter: snapshot ? 0 : session.welcome.headOffset,
    }),
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
      disconnects: subscription.disconnects,
      reconnects: subscription.reconnects,
      skippedRanges: subscription.skippedRanges,
    }),
    digest: async () => {
      if (endedEarly !== null) throw new Error(`its subscription had ended (${endedEarly})`);
      return compareDigest(subscription, follower, nextDigest, logger);
    },
    close: () => subscription.close(),
  };
});
