import {
  encodeDigestRequest,
  encodeResume,
  type ConsumerCounters,
  type ConsumerInit,
  type ConsumerReport,
  type DigestFrame,
  type DigestVerdict,
} from '@state-divergence/protocol';
import {
  cpuMicros,
  wallClockMs,
  withDeadline,
  type ChildContext,
  type Logger,
  type RoleHandlers,
} from '@state-divergence/runtime';
import { loadCheckpoint, type CheckpointState } from './checkpoint.js';
import { Checkpointer } from './checkpointer.js';
import { LocalCopy } from './local-copy.js';
import { StaleTracker, staleLog } from './stale-tracker.js';
import { StreamFollower } from './stream-follower.js';
import { Subscription } from './subscription.js';

const DIGEST_TIMEOUT_MS = 5_000;

/** The only way a consumer can learn it is wrong without trusting offsets: ask the broker for its digest. */
async function compareDigest(
  subscription: Subscription,
  follower: StreamFollower,
  nextDigest: () => Promise<DigestFrame>,
  logger: Logger,
): Promise<DigestVerdict> {
  const reply = nextDigest(); // armed before asking, so the answer cannot slip past
  await subscription.write(encodeDigestRequest());
  const frame = await withDeadline(
    reply,
    DIGEST_TIMEOUT_MS,
    `the broker sent no DIGEST within ${DIGEST_TIMEOUT_MS / 1000} s`,
  );
  const local = follower.copy.digest().toString();
  // The broker answers right after the events it queued for us before the request, so its offset is ours unless it
  // dropped events for us.
  const verdict = {
    match: local === frame.digest,
    local,
    broker: frame.digest,
    brokerOffset: frame.offset,
    localOffset: follower.lastOffset,
  };
  logger.info(
    verdict,
    verdict.match ? 'digest matches the broker' : 'digest DIFFERS from the broker: local copy is wrong',
  );
  return verdict;
}

/** What a consumer knows about itself. */
interface Self {
  follower: StreamFollower;
  subscription: Subscription;
  restoredFrom: NonNullable<ConsumerReport['restoredFrom']> | null;
  endedEarly: () => string | null;
  /** null: its mode's broker is silent when idle, so silence means nothing (init.staleAfterMs). */
  staleness: StaleTracker | null;
}

function countersOf({ follower, subscription, endedEarly, staleness }: Self): ConsumerCounters {
  const { applied, lastOffset, syncing } = follower;
  const { reconnects, skippedRanges, coveredAfter } = subscription;
  const stale = staleness === null ? {} : { stale: staleness.isStale(), staleMs: staleness.staleMs() };
  return {
    role: 'consumer',
    applied,
    lastOffset,
    endedEarly: endedEarly(),
    syncing,
    reconnects,
    skippedRanges,
    coveredAfter,
    ...stale,
    cpuMicros: cpuMicros(),
  };
}

function reportOf({ follower, subscription, restoredFrom, endedEarly, staleness }: Self): ConsumerReport {
  const now = wallClockMs(); // the open span, if any, ends here in both figures
  const stale = staleness === null ? {} : { staleMs: staleness.staleMs(now), staleSpans: staleness.staleSpans(now) };
  return {
    ...stale,
    role: 'consumer',
    applied: follower.applied,
    lastOffset: follower.lastOffset,
    coveredAfter: subscription.coveredAfter,
    latency: follower.latency.samples(),
    lags: follower.lags,
    resumes: follower.resumes,
    syncs: follower.syncs,
    entries: follower.copy.toTriples(),
    endedEarly: endedEarly(),
    disconnects: subscription.disconnects,
    reconnects: subscription.reconnects,
    skippedRanges: subscription.skippedRanges,
    subscriptions: subscription.log.records,
    removedBySnapshot: follower.removedBySnapshot,
    restoredFrom,
  };
}

/** Its checkpoint (where it keeps one), if it left one that is whole (a torn or foreign file is reported and ignored).
 * */
async function restore(init: ConsumerInit, logger: Logger): Promise<CheckpointState | null> {
  if (init.checkpointDir === null) return null;
  const found = await loadCheckpoint(init.checkpointDir);
  if (typeof found === 'string')
    logger.warn({ dir: init.checkpointDir, problem: found }, 'checkpoint unusable; subscribing with a snapshot');
  return typeof found === 'string' ? null : found;
}

/** What building a consumer needs of its process: a lone consumer's whole context, or what its pool gives each member.
 * */
export type ConsumerContext = Omit<ChildContext<ConsumerInit>, 'exit'>;

/**
 * One consumer, built from its init: restores its checkpoint, subscribes (resolves once subscribed)
 * and returns its handlers. The one place a consumer is made, whether it is a process of its own
 * (main.ts) or one of a pool's members (pool.ts): a pooled consumer is the same code.
 */
export async function startConsumer({ init, logger, send, ending }: ConsumerContext): Promise<RoleHandlers> {
  // Only where the broker keeps a log (init.resumable) do offsets outlive a subscription.
  const { resumable } = init;
  const restored = await restore(init, logger);
  let endedEarly: string | null = null;
  let digestWaiter: ((frame: DigestFrame) => void) | undefined;
  const nextDigest = () => new Promise<DigestFrame>((resolve) => (digestWaiter = resolve));
  // Created once subscribed (its clock starts at the first WELCOME): connecting at start-up is not silence.
  let staleness: StaleTracker | null = null;
  const follower = new StreamFollower({
    detectGaps: init.detectGaps,
    startOffset: restored?.offset ?? 0,
    awaitingSnapshot: false, // the first subscription's begin() says what it starts with
    requestResume: (fromOffset) => {
      logger.info({ fromOffset }, 'gap in offsets; asking for a resume');
      subscription.write(encodeResume(fromOffset)).catch(() => {});
    },
    onDigest: (frame) => digestWaiter?.(frame),
    resumeReplays: resumable,
    ...(restored && { copy: LocalCopy.fromEntries(restored.entries) }),
  });
  follower.lastVersion = restored?.lastVersion ?? 0;
  const restoredFrom =
    restored === null ? null : { offset: restored.offset, epoch: restored.epoch, keys: follower.copy.liveKeys };
  if (restoredFrom) logger.info(restoredFrom, 'restored from its checkpoint');
  const subscription = new Subscription(
    follower,
    {
      endpoint: init.broker,
      name: init.name,
      logger,
      ending,
      subscribeWith: init.subscribeWith,
      resumable,
      heard: () => staleness?.heard(),
      onEnd: (reason) => {
        endedEarly = reason;
        logger.warn({ reason, applied: follower.applied, lastOffset: follower.lastOffset }, 'subscription ended early');
        send({ type: 'ended', reason });
      },
    },
    restored?.epoch ?? null,
  );
  await subscription.start();
  if (init.staleAfterMs !== null) {
    staleness = new StaleTracker(init.staleAfterMs, staleLog(logger, init.staleAfterMs));
    staleness.start();
  }
  const first = subscription.log.records.at(-1);
  logger.info(
    {
      headOffset: first?.head,
      epoch: first?.epoch,
      outcome: first?.outcome,
      subscribeWith: init.subscribeWith,
      detectGaps: init.detectGaps,
      resumable,
    },
    'subscribed',
  );

  const checkpointer =
    init.checkpointDir === null
      ? null
      : new Checkpointer(
          init.checkpointDir,
          {
            // A copy and an offset that belong together: none while a snapshot is half received.
            state: () => {
              const offset = follower.resumableOffset;
              const epoch = subscription.epoch;
              if (offset === null || epoch === null) return null;
              return { epoch, offset, lastVersion: follower.lastVersion, entries: follower.copy.held() };
            },
            stamp: () => `${subscription.epoch}:${follower.lastOffset}:${follower.applied}:${follower.syncs.length}`,
          },
          logger,
        );

  const self: Self = { follower, subscription, restoredFrom, endedEarly: () => endedEarly, staleness };
  return {
    versions: () => follower.copy.versions(),
    counters: () => countersOf(self),
    gather: () => reportOf(self),
    digest: async () => {
      if (endedEarly !== null) throw new Error(`its subscription had ended (${endedEarly})`);
      return compareDigest(subscription, follower, nextDigest, logger);
    },
    brokerLost: () => subscription.brokerLost(),
    close: async () => {
      staleness?.stop();
      await checkpointer?.close();
      await subscription.close();
    },
  };
}
