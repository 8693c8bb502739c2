import type { Logger } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import type { ChildHandle } from './child/child-handle.js';
import { describeChild } from './child/role-process.js';
import type { Cluster } from './cluster.js';
import type { EventLog } from './event-log.js';

export interface ClusterWatch {
  /** Races a wait against a crash of the broker or the publisher, and against SIGINT/SIGTERM. */
  guard<T>(promise: Promise<T>): Promise<T>;
  /** Records a consumer's early end or death (each late joiner is watched too). */
  watchConsumer(consumer: ChildHandle<'consumer'>): void;
  /** A restarted broker: its death ends the run, as its predecessor's would have. */
  watchBroker(broker: ChildHandle<'broker'>): void;
  /** This process is about to be killed on purpose (a planned crash, of a consumer or the broker): its exit is the
   * plan, not a finding. */
  expectExit(child: ChildHandle): void;
  /** How each consumer that died mid-run died, by name. */
  readonly exits: ReadonlyMap<string, string>;
  /** Resolves when the rogue client (if any) has sent all its frames; listened for from the start. */
  readonly rogueDone: Promise<void> | undefined;
  /** The run is over: exits from now on are teardown, not findings. */
  stop(): void;
}

/**
 * Watches the running cluster. The broker, the publisher or a fault relay dying ends the run:
 * there is nothing left to measure (a broker killed by the plan is replaced, and
 * its successor is watched the same way). A consumer dying is a finding: it is
 * reported as ended early, and the broker is told to forget it at once (QUIC
 * would notice only at the idle timeout; in lossless mode its full queue would
 * hold the publisher back until then).
 */
export function watchCluster(
  cluster: Cluster,
  context: {
    eventLog: EventLog;
    logger: Logger;
    aborted: Promise<never>;
    breach?: (name: string, failure: string) => void;
  },
): ClusterWatch {
  const { eventLog, logger, aborted } = context;
  let running = true;
  const exits = new Map<string, string>();
  const planned = new Set<ChildHandle>();
  let fail: (error: RunError) => void = () => {};
  const crashed = new Promise<never>((_, reject) => (fail = reject));
  crashed.catch(() => {}); // observed by every guard; unhandled only if nobody waits
  const watchEssential = (child: ChildHandle, role = '') => {
    // A child that fails says why (`fatal`) before it exits: the run's one line carries it.
    let fatal: string | undefined;
    child.on((m) => {
      if (m.type === 'fatal') fatal = m.message;
    });
    void child.exited.then((how) => {
      const why = fatal === undefined ? '; see its log' : `: ${fatal}`;
      if (running && !planned.has(child))
        fail(
          new RunError('E_CHILD_EXIT', `${child.name} (pid ${child.pid})${role} ${how} in the middle of the run${why}`),
        );
    });
  };
  [cluster.broker, cluster.publisher].forEach((child) => watchEssential(child));
  // A relay carries its client's every datagram: without it that client is cut off for good, which no fault asked for.
  for (const [client, relay] of cluster.relays)
    watchEssential(relay, `, the fault relay of ${client}'s link to the broker,`);
  const watchConsumer = (consumer: ChildHandle<'consumer'>) => {
    consumer.on(
      (m) =>
        running &&
        m.type === 'ended' &&
        eventLog.record({ type: 'consumer-ended', consumer: consumer.name, reason: m.reason }),
    );
    void consumer.exited.then((how) => {
      if (!running) return;
      // A pooled consumer dies with its pool: each of the pool's members says so, naming the pool.
      const { pool } = consumer;
      const what = pool === null ? `process ${how}` : `pool ${pool} ${how}`;
      // Either way the broker forgets it now: a restart of the same name must find the name free.
      cluster.broker.send({ type: 'endSubscriber', name: consumer.name, reason: what });
      if (planned.has(consumer)) return;
      exits.set(
        consumer.name,
        pool === null
          ? `its process ${how} mid-run (pid ${consumer.pid})`
          : `its pool ${pool} (pid ${consumer.pid}) ${how} mid-run`,
      );
      eventLog.record({ type: 'consumer-ended', consumer: consumer.name, reason: what });
      logger.error(
        { consumer: consumer.name, childPid: consumer.pid, how, ...(pool !== null && { pool }) },
        'consumer process died',
      );
      // A foreign consumer must live until it is told to stop (docs/CONSUMER.md): exiting early breaks the contract.
      if (consumer.command !== null)
        context.breach?.(
          consumer.name,
          `${describeChild(consumer.name, consumer.pid, consumer.command)} ${how} mid-run (pid ${consumer.pid}` +
            `), before it was told to stop`,
        );
    });
  };
  cluster.consumers.forEach(watchConsumer);
  const { rogue } = cluster;
  return {
    guard: (promise) => Promise.race([promise, crashed, aborted]),
    watchConsumer,
    watchBroker: (broker) => watchEssential(broker),
    expectExit: (child) => void planned.add(child),
    exits,
    rogueDone: rogue && new Promise<void>((resolve) => rogue.on((m) => m.type === 'done' && resolve())),
    stop: () => {
      running = false;
    },
  };
}
