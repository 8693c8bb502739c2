import { encodeDigestRequest, encodeResume, Role, StartKind, type ConsumerCounters, type ConsumerReport, type DigestFrame, type DigestVerdict } from '@state-divergence/protocol';
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

/** What a consumer knows about itself. */
interface Self {
  follower: StreamFollower;
  subscription: Subscription;
  /** The stream reached it from this offset on: WELCOME's head for a latest subscribe, 0 for a snapshot. */
  coveredAfter: number;
  endedEarly: () => string | null;
}

function countersOf({ follower, subscription, coveredAfter, endedEarly }: Self): ConsumerCounters {
  const { applied, lastOffset, syncing } = follower;
  return { role: 'consumer', applied, lastOffset, endedEarly: endedEarly(), syncing, reconnects: subscription.reconnects, skippedRanges: subscription.skippedRanges, coveredAfter };
}

function reportOf({ follower, subscription, coveredAfter, endedEarly }: Self): ConsumerReport {
  return {
    role: 'consumer',
    applied: follower.applied,
    lastOffset: follower.lastOffset,
    coveredAfter,
    latency: follower.latency.samples(),
    lags: follower.lags,
    resumes: follower.resumes,
    syncs: follower.syncs,
    entries: follower.copy.toTriples(),
    endedEarly: endedEarly(),
    disconnects: subscription.disconnects,
    reconnects: subscription.reconnects,
    skippedRanges: subscription.skippedRanges,
  };
}

await runChild('consumer', async ({ init, logger, send, ending }) => {
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
    ending,
    onEnd: (reason) => {
      endedEarly = reason;
      logger.warn({ reason, applied: follower.applied, lastOffset: follower.lastOffset }, 'subscription ended early');
      send({ type: 'ended', reason });
    },
  });

  const self = { follower, subscription, coveredAfter: snapshot ? 0 : session.welcome.headOffset, endedEarly: () => endedEarly };
  return {
    versions: () => follower.copy.versions(),
    counters: () => countersOf(self),
    gather: () => reportOf(self),
    digest: async () => {
      if (endedEarly !== null) throw new Error(`its subscription had ended (${endedEarly})`);
      return compareDigest(subscription, follower, nextDigest, logger);
    },
    close: () => subscription.close(),
  };
});
