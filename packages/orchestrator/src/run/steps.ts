import type { Mode } from '@state-divergence/protocol';
import { setLogPhase, sleep, wallClockMs, withDeadline, type Logger } from '@state-divergence/runtime';
import type { PhaseName } from '../model/events.js';
import type { RunObserver } from '../model/live.js';
import type { ChildHandle } from './child/child-handle.js';
import type { RunClock } from './clock.js';
import type { Cluster } from './cluster.js';
import type { StepHandlers } from './interpret-plan.js';
import { Nemesis } from './nemesis.js';
import type { Timeline } from './timeline.js';
import type { ClusterWatch } from './watch.js';

const STATUS_TIMEOUT_MS = 2_000;
/** How long the plan waits, when publishing ends, for the publisher's last change before it goes on. */
const LAST_CHANGE_GRACE_MS = 500;

/** What carrying out the plan measured, for the outcome. */
export interface PlanRecord {
  /** Wall-clock ms of the first SIGSTOP and the last SIGCONT (latency and rates in the stall are cut by it). */
  stallWindow: { from: number; to: number };
  /** Changes published between them. */
  publishedInStall: number;
  /** What the publisher said it published, in its `done`. */
  published: number;
}

interface StepContext {
  mode: Mode;
  phaseMs: number;
  cluster: Cluster;
  watch: ClusterWatch;
  timeline: Timeline;
  clock: RunClock;
  logger: Logger;
  observer: RunObserver;
  /** Told of every phase change (the sampler labels its samples with it). */
  onPhase(phase: PhaseName): void;
}

/** Every process of the run, for messages that go to all of them. */
const everyone = (cluster: Cluster): ChildHandle[] => [cluster.broker, cluster.publisher, ...(cluster.rogue ? [cluster.rogue] : []), ...cluster.consumers];

/**
 * The plan's steps, carried out against a running cluster: phase changes (told
 * to every process, so each log line carries its phase), the workload's start
 * and end, the nemesis, late joiners and restarts. Returns the handlers, what
 * they record, and the nemesis (to be stopped on every path).
 */
export function planSteps(context: StepContext): { handlers: StepHandlers; record: PlanRecord; nemesis: Nemesis } {
  const { cluster, watch, timeline, clock, logger, observer, mode } = context;
  const record: PlanRecord = { stallWindow: { from: 0, to: Number.POSITIVE_INFINITY }, publishedInStall: 0, published: 0 };
  const nemesis = new Nemesis(timeline);
  const publisherDone = new Promise<number>((resolve) => cluster.publisher.on((m) => m.type === 'done' && resolve(m.published)));
  const starting: Array<Promise<unknown>> = [];
  const publishedNow = async () => (await watch.guard(cluster.publisher.status(STATUS_TIMEOUT_MS))).published;
  const named = (names: string[]) => cluster.consumers.filter((c) => names.includes(c.name));
  const one = (name: string) => named([name])[0];
  const pids = (targets: ChildHandle[]) => targets.map((c) => ({ name: c.name, pid: c.pid }));
  /** A joiner or a restarted consumer subscribes while the plan's clock keeps running; awaited at publish-done and at the end. */
  const subscribe = (name: string, event: 'joined' | 'restart') => {
    const started = cluster.addConsumer(name).then((c) => {
      timeline.record({ type: event, consumer: c.name, pid: c.pid });
      watch.watchConsumer(c);
    });
    started.catch(() => {});
    starting.push(started);
  };
  let publishedAtStall = 0;

  const handlers: StepHandlers = {
    phase: async ({ phase }) => {
      // The `stalled` phase is the fault window: the costs "during the stall" are measured over it.
      if (phase === 'stalled') {
        publishedAtStall = await publishedNow();
        record.stallWindow.from = wallClockMs();
      }
      if (phase === 'recovering') record.stallWindow.to = wallClockMs();
      timeline.record({ type: 'phase', phase });
      setLogPhase(phase);
      for (const child of everyone(cluster)) child.send({ type: 'phase', phase });
      logger.info({ at: clock.seconds() }, 'phase'); // the mixin adds `phase`
      context.onPhase(phase);
      observer.phase(mode, phase, clock.seconds());
      if (phase === 'recovering') record.publishedInStall = (await publishedNow()) - publishedAtStall;
    },
    publish: ({ durationMs }) => {
      cluster.publisher.send({ type: 'start', durationMs });
      cluster.rogue?.send({ type: 'start', durationMs: 0 });
    },
    freeze: ({ consumers }) => {
      const targets = named(consumers);
      nemesis.freeze(targets);
      logger.info({ consumers: pids(targets) }, 'stall started');
    },
    thaw: ({ consumers }) => {
      const targets = named(consumers);
      nemesis.thaw(targets);
      logger.info({ consumers: pids(targets) }, 'stall ended');
    },
    slow: ({ consumer, percent }) => {
      const target = one(consumer);
      if (target === undefined) return;
      nemesis.slow(target, percent);
      logger.info({ consumer, pid: target.pid, percent }, 'slow started');
    },
    unslow: ({ consumer }) => {
      nemesis.unslow(consumer);
      logger.info({ consumer }, 'slow ended');
    },
    crash: ({ consumer }) => {
      const target = one(consumer);
      if (target === undefined) return;
      watch.expectExit(target);
      nemesis.crash(target);
      logger.info({ consumer, pid: target.pid }, 'crashed (SIGKILL)');
    },
    restart: ({ consumer }) => {
      nemesis.restarted(consumer);
      subscribe(consumer, 'restart');
    },
    join: ({ consumer }) => subscribe(consumer, 'joined'),
    // Lossy and resync never block the publisher: its `done` follows its schedule within
    // milliseconds. Lossless blocks it while a consumer is frozen, by design: waiting would
    // only lengthen the stall, so there the thaw does not wait.
    publishEnd: async () => {
      if (mode === 'lossless') return;
      await watch.guard(Promise.race([publisherDone, sleep(LAST_CHANGE_GRACE_MS)]));
    },
    publishDone: async () => {
      await watch.guard(Promise.all(starting));
      const done = withDeadline(publisherDone, context.phaseMs + 10_000, 'the publisher did not report `done` after its publishing time; see its log');
      record.published = await watch.guard(done);
      timeline.record({ type: 'publisher-done', published: record.published });
    },
    end: async () => {
      await watch.guard(Promise.all(starting));
    },
  };
  return { handlers, record, nemesis };
}
