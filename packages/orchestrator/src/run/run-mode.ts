import { availableParallelism } from 'node:os';
import { defaultIdleTimeoutMs, modeSpec, type LogSettings, type Mode } from '@state-divergence/protocol';
import { processResources, setLogPhase, type Logger } from '@state-divergence/runtime';
import { assembleOutcome } from '../check/outcome.js';
import type { GatheredRun, ModeResult } from '../model/run-types.js';
import { RunError } from '../model/errors.js';
import type { PhaseName, PublishingOrigin } from '../model/events.js';
import type { Fault } from '../model/faults.js';
import type { RunObserver } from '../model/live.js';
import { ContractLog } from '../model/contract.js';
import { consumerName, type Options } from '../model/options.js';
import { rejectOnAbort } from './abort.js';
import type { ChildHandle, ChildRegistry } from './child/child-handle.js';
import { RunClock } from './clock.js';
import { collect, type Collected } from './collect.js';
import { startCluster, type Cluster, type ClusterSpec } from './cluster.js';
import { modeData, openRunData, type ModeDirs } from './data-dir.js';
import { interpretPlan } from './interpret-plan.js';
import { LiveMonitor } from './live-monitor.js';
import {
  buildPlan,
  checkPlan,
  faultedConsumers,
  longestStallMs,
  networkFaulted,
  planLengthMs,
  type RunPlan,
} from './plan.js';
import { planPools } from './pools.js';
import { startSampling } from './sampler.js';
import { announceTeardown, retireForeign } from './retire.js';
import { PlanSteps, type PlanRecord } from './steps.js';
import { TeardownStack } from './teardown.js';
import { EventLog } from './event-log.js';
import { watchCluster } from './watch.js';

export interface RunContext {
  signal: AbortSignal;
  observer: RunObserver;
  /** Every child of the invocation, for the second-signal kill and the last reap. */
  registry: ChildRegistry;
  /** The process's one root logger; each mode logs through a child bound to it. */
  logger: Logger;
  /**
   * Where a line for the person running goes (the data dir's --keep-data line): stderr when absent.
   * A caller whose live view holds the terminal keeps it until the view is gone.
   */
  say?: (line: string) => void;
}

const consumerNames = (options: Options): string[] =>
  Array.from({ length: options.consumers }, (_, i) => consumerName(i));

/** A sample due four times per phase for the over-time series (fewer when a round is slow: see sampler.ts), and at
 * least as often as the observer wants them. */
const samplingInterval = (observer: RunObserver, plan: RunPlan): number =>
  Math.min(observer.intervalMs, plan.phaseMs / 4);

/** What the cluster of a mode is started with: the run's flags, and an idle timeout that outlasts the longest stall. */
function clusterSpec(
  mode: Mode,
  options: Options,
  plan: RunPlan,
  log: LogSettings,
  contract: ContractLog,
  logger: Logger,
  dirs: ModeDirs | null,
): ClusterSpec {
  const idleTimeoutMs = options.idleTimeoutMs ?? defaultIdleTimeoutMs(longestStallMs(plan));
  const consumers = consumerNames(options).filter((name) => name !== options.joinLate);
  const foreign = Object.fromEntries(options.consumerCmd.map((c) => [c.consumer, c]));
  const pools = planPools({
    starting: consumers,
    plan,
    foreign: Object.keys(foreign),
    size: options.poolSize,
    cores: availableParallelism(),
  });
  const breach = (name: string, failure: string) => {
    logger.warn({ consumer: name, failure }, 'contract failure');
    contract.add(name, failure);
  };
  const data = dirs && {
    log: { dir: dirs.broker, fsync: options.fsync, retention: options.retention },
    checkpointDir: dirs.consumer,
  };
  return {
    ...options,
    mode,
    consumers,
    pools,
    idleTimeoutMs,
    idleTimeoutChosen: options.idleTimeoutMs !== null,
    log,
    foreign,
    breach,
    data,
    relayed: networkFaulted(plan),
  };
}

/**
 * The one owner of the run's data dir (run/data-dir.ts): a mode whose row keeps a log opens it
 * at its start (the given --data-dir, or a fresh temporary one) and releases it at its teardown,
 * once every child has stopped: removed, or with --keep-data said where it is. The CLI checked a
 * given one before anything started (run-command.ts), so bad input is still one line and exit 2.
 */
function openModeData(mode: Mode, options: Options, context: RunContext, teardown: TeardownStack): ModeDirs | null {
  if (!modeSpec(mode).keepsLog) return null;
  const stderr = (line: string) => void process.stderr.write(`orchestrator: ${line}\n`);
  const say = context.say ?? stderr;
  const data = openRunData(options, say);
  teardown.defer('release the data dir', () => data.release());
  return modeData(data.root, mode);
}

/**
 * One mode, start to finish, with fresh processes, the way Jepsen keeps a test:
 * start the cluster, watch it, run the plan (the workload, the nemesis and the
 * phases, as data), sample it for the observer, collect the final state, check
 * it, log the outcome, and tear everything down on every path.
 */
export async function runMode(mode: Mode, options: Options, context: RunContext): Promise<ModeResult> {
  const logger = context.logger.child({ mode });
  const log: LogSettings = { level: options.logLevel, file: options.logFile, mode };
  const plan = buildPlan(options);
  const problems = checkPlan(plan);
  if (problems.length > 0) throw new RunError('E_PLAN', `the run's plan cannot run: ${problems.join('; ')}`);
  const clock = new RunClock();
  const eventLog = new EventLog(() => clock.sinceStart());
  const { aborted, dispose } = rejectOnAbort(context.signal);
  const teardown = new TeardownStack(logger);
  teardown.defer('stop listening for an interrupt', dispose);
  // Released after every child is stopped (the stack unwinds in reverse): nothing writes into it any more.
  const dirs = openModeData(mode, options, context, teardown);
  const children: ChildHandle[] = [];
  teardown.defer('stop every child', () => stopChildren(children, context.registry));
  setLogPhase('starting');
  logger.info({ options: { ...options, modes: undefined } }, 'mode starting');
  try {
    const track = (child: ChildHandle) => {
      children.push(child);
      context.registry.add(child);
      eventLog.record({ type: 'spawned', name: child.name, pid: child.pid });
    };
    const contract = new ContractLog();
    const spec = clusterSpec(mode, options, plan, log, contract, logger, dirs);
    const cluster = await startCluster(spec, { logger, track, aborted });
    const watch = watchCluster(cluster, { eventLog, logger, aborted, ...(spec.breach && { breach: spec.breach }) });
    teardown.defer('stop watching', () => watch.stop());
    let phase: PhaseName = 'converged';
    const faulted = faultedConsumers(plan);
    const steps = new PlanSteps({
      mode,
      phaseMs: plan.phaseMs,
      cluster,
      watch,
      eventLog,
      clock,
      logger,
      observer: context.observer,
      onPhase: (next) => (phase = next),
    });
    const { record, nemesis } = steps;
    const monitor = new LiveMonitor({
      ...cluster,
      broker: () => (nemesis.brokerAway ? null : cluster.broker),
      consumers: () => cluster.consumers,
      faulted: (name) => faulted.includes(name),
      faultOf: (name) => nemesis.activeFault(name),
      keys: options.keys,
      totalSeconds: planLengthMs(plan) / 1000,
      faults: options.faults,
      mode,
    });
    teardown.defer('end every fault', () => nemesis.stop());
    clock.markPublishing();
    const sampleMs = samplingInterval(context.observer, plan);
    const sampling = startSampling(monitor, context.observer, sampleMs, () => ({ phase, seconds: clock.seconds() }));
    teardown.defer('stop sampling', () => sampling.stop());
    await interpretPlan(plan, steps, (at) => watch.guard(clock.until(at, context.signal)));
    sampling.stop();
    setLogPhase('checking');
    for (const child of children) child.send({ type: 'phase', phase: 'checking' });
    // Catching up is CPU-bound: allow more time the more consumers share the 2 cores.
    const drainTimeoutMs = Math.max(5_000, longestStallMs(plan)) + 100 * options.consumers;
    // A restarted broker without a log counts its offsets from its own start: its head is not comparable with what was
    // published.
    const published = record.brokerOutages.length > 0 ? null : record.published;
    const collected = await collect(cluster, {
      watch,
      published,
      drainTimeoutMs,
      signal: context.signal,
      logger,
      eventLog,
      ...(spec.breach && { breach: spec.breach }),
    });
    await retireForeign(children, watch);
    const foreign = {
      commands: Object.fromEntries(options.consumerCmd.map((c) => [c.consumer, c.command])),
      contract: contract.all(),
    };
    const outcome = assembleOutcome(
      gatheredRun({
        mode,
        cluster,
        collected,
        record,
        faulted,
        faults: options.faults,
        names: consumerNames(options),
        exits: watch.exits,
        monitor,
        children,
        eventLog,
        origin: clock.origin(),
        seconds: clock.seconds(),
        intervalMs: sampleMs,
        foreign,
      }),
    );
    logOutcome(logger, outcome);
    return outcome;
  } finally {
    setLogPhase('teardown');
    await teardown.dispose();
  }
}

/**
 * Every child is told the run is over (`ending`), and each that can answer confirms it
 * (IPC is ordered: a reply to a later request means `ending` was taken), so a
 * stream that ends under it from here on is not logged as a failure. Then all
 * are stopped at once. Never waits for a graceful QUIC close: after a stall that
 * takes ~40 s with this library.
 */
async function stopChildren(children: ChildHandle[], registry: ChildRegistry): Promise<void> {
  await announceTeardown(children);
  await Promise.all(children.map((child) => child.stop()));
  for (const child of children) registry.delete(child);
}

/** Everything the checker and the report need, in one value. */
function gatheredRun(parts: {
  mode: Mode;
  cluster: Cluster;
  collected: Collected;
  record: PlanRecord;
  faulted: string[];
  faults: Fault[];
  /** Every consumer's name in report order. */
  names: string[];
  exits: ReadonlyMap<string, string>;
  monitor: LiveMonitor;
  children: ChildHandle[];
  eventLog: EventLog;
  origin: PublishingOrigin;
  seconds: number;
  intervalMs: number;
  /** Foreign consumers' command lines and contract failures, by name. */
  foreign: Pick<GatheredRun, 'commands' | 'contract'>;
}): GatheredRun {
  const { collected, cluster, record } = parts;
  const order = (name: string) => parts.names.indexOf(name);
  const row = (name: string) => ({
    name,
    faulted: parts.faulted.includes(name),
    faults: parts.faults.filter((f) => f.consumer === name),
    recoveredAt: record.recoveredAt[name] ?? null,
  });
  // Only a foreign consumer can be missing here (one of ours that fails to start ends the run): it never said ready.
  const neverReady = parts.names.filter((name) => !cluster.consumers.some((c) => c.name === name));
  return {
    mode: parts.mode,
    consumers: [
      ...cluster.consumers.map((c, i) => ({
        ...row(c.name),
        ...collected.consumers[i]!,
        died: parts.exits.get(c.name) ?? null,
      })),
      ...neverReady.map((name) => ({
        ...row(name),
        report: null,
        digest: null,
        died: 'it never became ready (see its contract failures)',
      })),
    ].sort((a, b) => order(a.name) - order(b.name)),
    ...parts.foreign,
    pools: Object.fromEntries(cluster.consumers.flatMap((c) => (c.pool === null ? [] : [[c.name, c.pool]]))),
    publisher: collected.publisher,
    broker: collected.broker,
    stallWindow: record.stallWindow,
    datagramBytes: cluster.endpoint.datagramBytes,
    stallBytes: record.stallBytes,
    brokerOutages: record.brokerOutages,
    publishedInStall: record.publishedInStall,
    publishedBeforeStall: record.publishedBeforeStall,
    drain: collected.drain,
    rogue: collected.rogue,
    relays: collected.relays,
    wrongOverTime: {
      intervalMs: parts.intervalMs,
      ...parts.monitor.overTime(),
      publisherRate: parts.monitor.publisherRates(),
    },
    processes: [
      { name: 'orchestrator', role: 'orchestrator', ...processResources() },
      ...parts.children.flatMap((c) => (c.resources ? [{ name: c.name, role: c.role, ...c.resources }] : [])),
    ],
    events: [...parts.eventLog.events],
    origin: parts.origin,
    wallSeconds: parts.seconds,
  };
}

function logOutcome(logger: Logger, outcome: ModeResult): void {
  const consumers = outcome.consumers.map((c) => ({
    name: c.name,
    applied: c.applied,
    wrong: c.wrongKeys.length,
    lost: c.lost,
    unexpected: c.unexpected,
    unexplained: c.unexplainedKeys.length,
    digestMatch: c.digest?.match ?? null,
    endedEarly: c.endedEarly,
  }));
  logger.info(
    { verdict: outcome.check.verdict, published: outcome.published, cost: outcome.cost, consumers },
    'outcome',
  );
}
