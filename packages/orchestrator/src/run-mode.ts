import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BrokerReport,
  ChildInit,
  ConsumerReport,
  DigestVerdict,
  LogSettings,
  Mode,
  PublisherCounters,
  PublisherReport,
  RogueReport,
} from '@state-divergence/protocol';
import { TOKEN_BYTES } from '@state-divergence/protocol';
import { createLogger, processResources, setLogPhase, wallClockMs, withDeadline, type Logger } from '@state-divergence/runtime';
import { spawnRole, type ChildHandle } from './child-process.js';
import { drain } from './drain.js';
import { RunError } from './errors.js';
import { StallNemesis } from './nemesis.js';
import { consumerName, type Options } from './options.js';
import { assembleOutcome, type ModeResult } from './outcome.js';
import { PHASES, PUBLISH_PHASES, RUN_LENGTH_IN_PHASES, STALL, Timeline, type PhaseName } from './timeline.js';
import { generateRunCertificate } from './tls.js';
import { LiveMonitor, type LiveSnapshot } from './live-monitor.js';
import { brokerInit, consumerInit, HOST, publisherInit } from './child-inits.js';

export type { ModeResult } from './outcome.js';

const STATUS_TIMEOUT_MS = 2_000;
const GATHER_TIMEOUT_MS = 5_000;
const DIGEST_TIMEOUT_MS = 8_000;

export interface RunObserver {
  /** How often the run is sampled for it (the live view wants ~2/s; plain lines 1/s). */
  intervalMs: number;
  phase(mode: Mode, phase: PhaseName, seconds: number): void;
  tick(snapshot: LiveSnapshot): void;
}

/** Tracks every live child of the whole invocation, so any exit path can reap them. */
export type ChildRegistry = Set<ChildHandle>;


/**
 * One mode, start to finish, with fresh processes: the interpreter of the
 * plan in timeline.ts. The workload (publisher) and the clients (consumers) act
 * and report; the nemesis freezes; the checker judges; this only sequences.
 */
export async function runMode(
  mode: Mode,
  options: Options,
  context: { signal: AbortSignal; observer: RunObserver; registry: ChildRegistry },
): Promise<ModeResult> {
  const { signal, observer, registry } = context;
  const phaseMs = options.duration * 1000;
  const stallMs = (STALL.end - STALL.start) * phaseMs;
  // The stalled connection must outlive the stall, or it dies instead of lagging
  // (which would measure something else). Margin for the drain after it.
  const idleTimeoutMs = Math.ceil(stallMs * 2 + 10_000);
  const log: LogSettings = { level: options.logLevel, file: options.logFile, mode };
  const logger: Logger = createLogger('orchestrator', log);
  /** Every log line of every process carries the phase it was written in. */
  const bindPhase = (phase: string) => {
    setLogPhase(phase);
    for (const child of children) child.send({ type: 'phase', phase });
  };
  setLogPhase('starting');
  const timeline = new Timeline();
  const children: ChildHandle[] = [];
  let running = true;
  let ticker: NodeJS.Timeout | undefined;
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {});

  /** Starts a child now; it boots while `init` is still being worked out. */
  const spawn = async <I extends ChildInit>(role: I['role'], name: string, init: I | Promise<I>): Promise<ChildHandle> => {
    const child = await spawnRole({
      role,
      name,
      init,
      logger,
      readyTimeoutMs,
      track: (booting) => {
        children.push(booting);
        registry.add(booting);
      },
    });
    timeline.record({ type: 'spawned', name: child.name, pid: child.pid });
    return child;
  };

  // Every process boots at once and booting is CPU-bound: on 2 cores fifty of them take
  // ~15 s. Allow 15 s plus half a second per process before calling one stuck.
  const readyTimeoutMs = 15_000 + 500 * (options.consumers + 3);
  // Admission: the pinned certificate proves the broker to clients; the token proves clients to the broker.
  const token = randomBytes(TOKEN_BYTES).toString('hex');
  const certificate = generateRunCertificate();
  logger.info({ options: { ...options, modes: undefined } }, 'mode starting');
  try {
    // Every process starts at once and loads its modules while the certificate is
    // made and the broker binds; each gets its configuration as soon as it exists.
    const brokerReady = spawn('broker', 'broker', certificate.then((tls) => brokerInit({ mode, keys: options.keys, queueCapacity: options.queueCapacity, tls, token, idleTimeoutMs, log })));
    const endpoint = Promise.all([brokerReady, certificate]).then(([b, tls]) => ({ host: HOST, port: b.port!, caPem: tls.certPem, idleTimeoutMs, token }));
    // Observed by every client's spawn; this only keeps a failure seen once from also counting as unhandled.
    endpoint.catch(() => {});
    const spawnConsumer = (name: string) => spawn('consumer', name, endpoint.then((broker) => consumerInit(name, broker, mode, log)));
    const names = Array.from({ length: options.consumers }, (_, i) => consumerName(i));
    // Each consumer is `ready` only once subscribed, so none misses the first event.
    const starting = [
      brokerReady,
      spawn('publisher', 'publisher', endpoint.then((broker) => publisherInit(broker, options, log))),
      ...(options.rogueFrames === 0 ? [] : [spawn('rogue', 'rogue', Promise.all([endpoint, generateRunCertificate()]).then(([broker, decoy]): ChildInit => ({
        role: 'rogue', name: 'rogue', broker, decoyCaPem: decoy.certPem, frames: options.rogueFrames, seed: options.seed, log,
      })))]),
      ...names.filter((name) => name !== options.joinLate).map(spawnConsumer),
    ];
    // Wait for all of them, even when one fails, so none is left booting behind our back.
    const started = await Promise.race([Promise.allSettled(starting), aborted]);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const [broker, publisher, ...rest] = started.map((s) => (s as PromiseFulfilledResult<ChildHandle>).value) as [ChildHandle, ChildHandle, ...ChildHandle[]];
    const rogue = options.rogueFrames === 0 ? undefined : rest.shift();
    const consumers = rest;
    const rogueDone = rogue && new Promise<void>((resolve) => rogue.on((m) => m.type === 'done' && resolve()));

    // The broker or the publisher dying ends the run: there is nothing left to measure.
    const crashed = Promise.race(
      [broker, publisher].map(async (child) => {
        const how = await child.exited;
        if (running) throw new RunError('E_CHILD_EXIT', `${child.name} (pid ${child.pid}) ${how} in the middle of the run; see its log`);
        return new Promise<never>(() => {});
      }),
    );
    crashed.catch(() => {});
    // Every wait ends early on a crash of a core process or on SIGINT/SIGTERM.
    const guard = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, crashed, aborted]);
    // Only while the run is live: during teardown every subscription ends, by design.
    const exits = new Map<string, string>();
    const watchConsumer = (consumer: ChildHandle) => {
      consumer.on((m) => running && m.type === 'ended' && timeline.record({ type: 'consumer-ended', consumer: consumer.name, reason: m.reason }));
      void consumer.exited.then((how) => {
        if (!running) return;
        exits.set(consumer.name, `its process ${how} mid-run (pid ${consumer.pid})`);
        // The broker would only notice at the QUIC idle timeout; until then, in lossless
        // mode, the dead consumer's full queue would hold the publisher back.
        broker.send({ type: 'endSubscriber', name: consumer.name, reason: `process ${how}` });
        timeline.record({ type: 'consumer-ended', consumer: consumer.name, reason: `process ${how}` });
        logger.error({ consumer: consumer.name, childPid: consumer.pid, how }, 'consumer process died');
      });
    };
    consumers.forEach(watchConsumer);
    const publisherDone = new Promise<number>((resolve) => publisher.on((m) => m.type === 'done' && resolve(m.published)));

    const stalled = consumers.filter((c) => options.stall.includes(c.name));
    const nemesis = new StallNemesis(stalled, timeline);
    const origin = performance.now();
    const seconds = () => Math.round((performance.now() - origin) / 100) / 10;
    let phase: PhaseName = 'converged';
    const enter = (next: PhaseName) => {
      phase = next;
      timeline.record({ type: 'phase', phase: next });
      bindPhase(next);
      logger.info({ at: seconds() }, 'phase'); // the mixin adds `phase`
      observer.phase(mode, next, seconds());
    };
    const until = (phases: number) => guard(sleep(Math.max(0, origin + phases * phaseMs - performance.now()), undefined, { signal }));
    const monitor = new LiveMonitor({
      publisher, broker, consumers: () => consumers, stalled: (c) => stalled.includes(c), keys: options.keys,
      totalSeconds: RUN_LENGTH_IN_PHASES * options.duration, mode,
    });
    let sampling = false;
    const sample = () => {
      if (sampling) return; // a slow round is skipped, never queued
      sampling = true;
      monitor.sample(phase, seconds()).then(observer.tick, () => {}).finally(() => (sampling = false));
    };

    enter(PHASES[0].name);
    publisher.send({ type: 'start', durationMs: PUBLISH_PHASES * phaseMs });
    rogue?.send({ type: 'start', durationMs: 0 });
    ticker = setInterval(sample, observer.intervalMs);
    await until(STALL.start);
    const beforeStall = (await guard(publisher.status(STATUS_TIMEOUT_MS))) as PublisherCounters;
    const stallWindow = { from: wallClockMs(), to: Number.POSITIVE_INFINITY };
    nemesis.start();
    logger.info({ consumers: stalled.map((c) => ({ name: c.name, pid: c.pid })) }, 'stall started');
    enter('stalled');
    // A late joiner subscribes in the middle of the stream (not awaited: the plan's clock keeps running).
    const joining = options.joinLate === null ? undefined : spawnConsumer(options.joinLate).then((consumer) => {
      timeline.record({ type: 'joined', consumer: consumer.name, pid: consumer.pid });
      watchConsumer(consumer);
      consumers.push(consumer);
    });
    joining?.catch(() => {});
    await until(STALL.end);
    nemesis.stop();
    stallWindow.to = wallClockMs();
    logger.info({ consumers: stalled.map((c) => ({ name: c.name, pid: c.pid })) }, 'stall ended');
    const afterStall = (await guard(publisher.status(STATUS_TIMEOUT_MS))) as PublisherCounters;
    enter('recovering');
    if (joining) await guard(joining);
    const published = await guard(withDeadline(publisherDone, phaseMs + 10_000, 'the publisher did not report `done` after its publishing time; see its log'));
    timeline.record({ type: 'publisher-done', published });
    await until(PHASES[3].start);
    enter('quiesced');
    await until(RUN_LENGTH_IN_PHASES);
    clearInterval(ticker);

    if (rogueDone) await guard(withDeadline(rogueDone, 60_000, `the rogue client did not finish its ${options.rogueFrames} frames within 60 s`)).catch((error: unknown) => logger.warn({ err: error }, 'rogue unfinished'));
    // A dead consumer can answer nothing: it is reported as ended early, not waited for.
    const live = () => consumers.filter((c) => c.alive);
    // Catching up is CPU-bound: allow more time the more consumers share the 2 cores.
    bindPhase('checking');
    const drained = await guard(drain({ broker, consumers: live(), published, timeoutMs: Math.max(5_000, stallMs) + 100 * options.consumers, signal }));
    timeline.record({ type: 'drained', ms: drained.ms, complete: drained.complete });
    logger.info(drained, drained.complete ? 'drained' : 'drain incomplete');

    // Each consumer asks the broker for its digest: the one check it could make itself.
    const digests = await Promise.all(
      consumers.map((c) =>
        guard(c.alive ? c.digest(DIGEST_TIMEOUT_MS) : Promise.resolve(null)).catch((error: unknown): DigestVerdict | null => {
          logger.warn({ child: c.name, err: error }, 'digest check failed');
          return null;
        }),
      ),
    );
    const gather = (child: ChildHandle) =>
      guard(child.alive ? child.gather(GATHER_TIMEOUT_MS) : Promise.resolve(null)).catch((error: unknown) => {
        logger.error({ child: child.name, err: error }, 'gather failed');
        return null;
      });
    const [brokerReport, publisherReport, ...consumerReports] = await Promise.all([broker, publisher, ...consumers].map(gather));
    if (publisherReport === null) throw new RunError('E_GATHER', 'the publisher did not hand over its authority; nothing to check against');
    const rogueReport = rogue ? ((await gather(rogue)) as RogueReport | null) : null;

    const outcome = assembleOutcome({
      mode,
      consumers: consumers
        .map((c, i) => ({
          name: c.name,
          stalled: stalled.includes(c),
          report: consumerReports[i] as ConsumerReport | null,
          digest: digests[i] ?? null,
          died: exits.get(c.name) ?? null,
        }))
        .sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name)),
      publisher: publisherReport as PublisherReport,
      broker: brokerReport as BrokerReport | null,
      stallWindow,
      publishedInStall: afterStall.published - beforeStall.published,
      drain: drained,
      rogue: rogueReport,
      wrongOverTime: { intervalMs: observer.intervalMs, series: monitor.series(), publisherRate: monitor.publisherRates() },
      processes: [
        { name: 'orchestrator', role: 'orchestrator', ...processResources() },
        ...children.flatMap((c) => (c.resources ? [{ name: c.name, role: c.role, ...c.resources }] : [])),
      ],
      events: [...timeline.events],
      wallSeconds: seconds(),
    });
    logger.info(
      {
        verdict: outcome.check.verdict,
        published: outcome.published,
        cost: outcome.cost,
        consumers: outcome.check.consumers.map((c) => ({ name: c.name, applied: c.applied, wrong: c.wrongKeys.length, lost: c.lost, unexpected: c.unexpected, unexplained: c.unexplainedKeys.length, digestMatch: outcome.digests[c.name]?.match ?? null, endedEarly: c.endedEarly })),
      },
      'outcome',
    );
    return outcome;
  } finally {
    running = false;
    setLogPhase('teardown');
    clearInterval(ticker);
    // Never wait for a graceful QUIC close: after a stall that takes ~40 s with this library.
    await Promise.all(children.map((child) => child.stop()));
    for (const child of children) registry.delete(child);
  }
}
