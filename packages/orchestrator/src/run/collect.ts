import type {
  BrokerReport,
  ChildRole,
  ConsumerReport,
  DigestVerdict,
  PublisherReport,
  RelayReport,
  RogueReport,
} from '@state-divergence/protocol';
import { errorMessage, withDeadline, type Logger } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import type { ChildHandle } from './child/child-handle.js';
import type { Cluster } from './cluster.js';
import type { DrainResult } from '../model/run-types.js';
import { drain } from './drain.js';
import type { EventLog } from './event-log.js';
import type { ClusterWatch } from './watch.js';

const GATHER_TIMEOUT_MS = 5_000;
const DIGEST_TIMEOUT_MS = 8_000;
const ROGUE_TIMEOUT_MS = 60_000;

/** Everything the checker needs, gathered from the processes once the run is quiet. */
export interface Collected {
  drain: DrainResult;
  publisher: PublisherReport;
  /** null: the broker could not hand over its report; the verdict is then unknown (check/checker.ts), never a guess. */
  broker: BrokerReport | null;
  /** Aligned with cluster.consumers; null where the consumer could not answer. */
  consumers: Array<{ report: ConsumerReport | null; digest: DigestVerdict | null }>;
  rogue: RogueReport | null;
  /** Each relay's report, by its client's name; a relay that could not answer is left out. */
  relays: Record<string, RelayReport>;
}

/**
 * The final read, Jepsen-style: wait until every live consumer has applied
 * everything the broker accepted for it (measured, not slept), let each
 * consumer compare its digest with the broker's (the one check it could make
 * itself), then gather every process's report. A child that cannot answer is a
 * finding (null); a crash of the broker or the publisher, or SIGINT, ends the
 * run with that cause: the guard sits outside each child's own failure.
 */
export async function collect(
  cluster: Cluster,
  context: {
    watch: ClusterWatch;
    published: number | null;
    drainTimeoutMs: number;
    signal: AbortSignal;
    logger: Logger;
    eventLog: EventLog;
    /** Told when a foreign consumer does not answer as docs/CONSUMER.md says it must. */
    breach?: (name: string, failure: string) => void;
  },
): Promise<Collected> {
  const { watch, logger, eventLog } = context;
  // A foreign consumer that cannot answer breaks the contract; refusing a digest does not (it may keep none).
  const contract =
    (child: ChildHandle, refusable = false) =>
    (error: unknown) => {
      if (child.command === null || (refusable && error instanceof RunError && error.code === 'E_REFUSED')) return;
      context.breach?.(child.name, errorMessage(error));
    };
  const { broker, publisher, rogue, consumers } = cluster;
  // The rogue's hostile frames must all have been sent before anything is judged.
  if (watch.rogueDone)
    await watch.guard(
      withDeadline(
        watch.rogueDone,
        ROGUE_TIMEOUT_MS,
        `the rogue client did not finish its frames within ${ROGUE_TIMEOUT_MS / 1000} s`,
      ).catch((error: unknown) => logger.warn({ err: error }, 'rogue unfinished')),
    );
  // A dead consumer can answer nothing: it is reported as ended early, not waited for.
  const live = consumers.filter((c) => c.alive);
  const drained = await watch.guard(
    drain({
      broker,
      consumers: live,
      published: context.published,
      timeoutMs: context.drainTimeoutMs,
      signal: context.signal,
      failed: (c, error) => contract(c)(error),
    }),
  );
  eventLog.record({ type: 'drained', ms: drained.ms, complete: drained.complete });
  logger.info(drained, drained.complete ? 'drained' : 'drain incomplete');
  const digests = await Promise.all(
    consumers.map((c) =>
      answer(
        c,
        () => c.digest(DIGEST_TIMEOUT_MS),
        watch,
        logger.warn.bind(logger),
        'digest check failed',
        contract(c, true),
      ),
    ),
  );
  const gather = <R extends ChildRole>(child: ChildHandle<R>) =>
    answer(
      child,
      () => child.gather(GATHER_TIMEOUT_MS),
      watch,
      logger.error.bind(logger),
      'gather failed',
      contract(child),
    );
  const relays = [...cluster.relays];
  const [relayReports, [brokerReport, publisherReport, ...consumerReports]] = await Promise.all([
    Promise.all(relays.map(([, relay]) => gather(relay))),
    Promise.all([gather(broker), gather(publisher), ...consumers.map(gather)]),
  ]);
  if (publisherReport === null)
    throw new RunError(
      'E_GATHER',
      'the publisher did not hand over its authority; nothing to check against (see its log)',
    );
  return {
    drain: drained,
    publisher: publisherReport,
    broker: brokerReport,
    consumers: consumers.map((_, i) => ({ report: consumerReports[i] ?? null, digest: digests[i] ?? null })),
    rogue: rogue ? await gather(rogue) : null,
    relays: Object.fromEntries(relays.flatMap(([client], i) => (relayReports[i] ? [[client, relayReports[i]]] : []))),
  };
}

/** A child's answer, or null when it could not give one; a crash or an interrupt still ends the run. */
function answer<T>(
  child: ChildHandle,
  ask: () => Promise<T>,
  watch: ClusterWatch,
  log: Logger['warn'],
  failure: string,
  failed: (error: unknown) => void,
): Promise<T | null> {
  if (!child.alive) return Promise.resolve(null);
  const own = ask().catch((error: unknown) => {
    log({ child: child.name, err: error }, failure);
    failed(error);
    return null;
  });
  return watch.guard(own);
}
