import { throttlesPublisher, type Mode } from '@state-divergence/protocol';
import { setLogPhase, sleep, wallClockMs, withDeadline, type Logger } from '@state-divergence/runtime';
import type { PhaseName, RunEvent } from '../model/events.js';
import type { RunObserver } from '../model/live.js';
import type { ChildHandle } from './child/child-handle.js';
import type { RunClock } from './clock.js';
import type { Cluster } from './cluster.js';
import type { StepHandlers } from './interpret-plan.js';
import { Nemesis, type Confirmed } from './nemesis.js';
import type { EventLog } from './event-log.js';
import type { ClusterWatch } from './watch.js';
import type { BrokerSample, StallBytes } from '../model/check-types.js';
import type { BrokerOutage } from '../model/run-types.js';
import { RunError } from '../model/errors.js';
import { describeFault, type Fault } from '../model/faults.js';

const STATUS_TIMEOUT_MS = 2_000;
/** The events that start a fault: the first of them in the `stalled` phase opens the fault window. */
const FAULT_STARTS: ReadonlySet<RunEvent['type']> = new Set(['freeze', 'slow', 'crash', 'broker-crash', 'net-fault']);
/** How often the plan asks the broker whether it has taken the publisher's last change. */
const LAST_CHANGE_POLL_MS = 10;

/** What carrying out the plan measured, for the outcome. */
export interface PlanRecord {
  /**
   * Wall-clock ms of the fault window, the `stalled` phase (latency and rates in the stall are cut
   * by it): from its start, or, when a freeze opens it, from that freeze's confirmation; to the
   * start of `recovering`, after the last fault ended (a thaw: once confirmed).
   */
  stallWindow: { from: number; to: number };
  /** Changes published between them. */
  publishedInStall: number;
  /** Changes published before the fault window opened: the publisher's count as `stallWindow.from` was taken. */
  publishedBeforeStall: number;
  /** What the publisher said it published, in its `done`. */
  published: number;
  /** Wall-clock ms each faulted consumer's last fault ended (a thaw once confirmed, unslow, restart): its own recovery
   * starts there. */
  recoveredAt: Record<string, number>;
  /** What the broker had sent each frozen consumer once its SIGSTOP and its SIGCONT were confirmed
   * (check/transport.ts). */
  stallBytes: StallBytes[];
  /** Each broker outage (--crash broker@FROM-TO), wall-clock ms: from its SIGKILL until its successor said ready. */
  brokerOutages: BrokerOutage[];
}

interface StepContext {
  mode: Mode;
  phaseMs: number;
  cluster: Cluster;
  watch: ClusterWatch;
  eventLog: EventLog;
  clock: RunClock;
  logger: Logger;
  observer: RunObserver;
  /** Told of every phase change (the sampler labels its samples with it). */
  onPhase(phase: PhaseName): void;
}

/** Every process of the run, for messages that go to all of them (a pool's members hear them through their pool). */
const everyone = (cluster: Cluster): ChildHandle[] => [
  cluster.broker,
  cluster.publisher,
  ...(cluster.rogue ? [cluster.rogue] : []),
  ...cluster.pools,
  ...cluster.consumers,
  ...cluster.relays.values(),
];
/** Who a confirmed freeze or thaw was, for its log line: name, pid, and how long /proc took to show it. */
const confirmedPids = (done: Confirmed[]) =>
  done.map((o) => ({ name: o.target.name, pid: o.target.pid, waitedMs: o.waitedMs }));

/**
 * The plan's steps, carried out against a running cluster: phase changes (told
 * to every process, so each log line carries its phase), the workload's start
 * and end, the nemesis, late joiners and restarts. `record` is what they
 * measured; `nemesis` must be stopped on every path.
 */
export class PlanSteps implements StepHandlers {
  readonly record: PlanRecord = {
    stallWindow: { from: 0, to: Number.POSITIVE_INFINITY },
    publishedInStall: 0,
    publishedBeforeStall: 0,
    published: 0,
    recoveredAt: {},
    stallBytes: [],
    brokerOutages: [],
  };
  /** Each crashed consumer's dead process, until its successor starts. */
  private readonly crashed = new Map<string, ChildHandle<'consumer'>>();
  /** Each restarted consumer's successor until it is ready (settled either way): till then its handle is the dead
   * predecessor's. */
  private readonly successors = new Map<string, Promise<void>>();
  readonly nemesis: Nemesis;
  private readonly publisherDone: Promise<number>;
  /** Joiners and restarted consumers subscribing while the plan's clock runs on; awaited at publishDone and at the end.
   * */
  private readonly starting: Array<Promise<unknown>> = [];
  /** Stalls not thawed yet, and the broker answers still on their way (sampleBytes). */
  private open: StallBytes[] = [];
  private readonly sampling: Array<Promise<void>> = [];
  /** Resolves when there is a broker to talk to: at once, except between a broker crash and its successor's `ready`. */
  private brokerBack: Promise<void> = Promise.resolve();
  /** Settles brokerBack: the successor is ready, or could not be started. */
  private brokerReturned = { resolve: () => {}, reject: (_error: unknown) => {} };
  private phaseNow: PhaseName | undefined;
  /** Wall-clock ms of the broker's last SIGKILL: its outage is recorded once its successor is ready. */
  private brokerKilledAt = 0;

  constructor(private readonly context: StepContext) {
    this.nemesis = new Nemesis(context.eventLog);
    this.publisherDone = new Promise<number>((resolve) =>
      context.cluster.publisher.on((m) => m.type === 'done' && resolve(m.published)),
    );
  }

  private async publishedNow(): Promise<number> {
    return (await this.context.watch.guard(this.context.cluster.publisher.status(STATUS_TIMEOUT_MS))).published;
  }

  /**
   * Asks the broker, without waiting, what it has handed each of `stalls`' consumers so far, and
   * records it with `put`. A measurement, not a step: an answer that never comes leaves the stall's
   * figure unknown (check/transport.ts) and neither delays nor fails the plan.
   */
  private sampleBytes(stalls: StallBytes[], put: (stall: StallBytes, sample: BrokerSample) => void): void {
    if (this.nemesis.brokerAway) return; // nobody to ask: the figure stays unknown
    const asked = this.context.cluster.broker.status(STATUS_TIMEOUT_MS).then(
      ({ at, subscribers }) => {
        for (const stall of stalls) put(stall, { at, bytesSent: subscribers[stall.consumer]?.bytesSent ?? 0 });
      },
      (error: unknown) =>
        this.context.logger.warn(
          { err: error, consumers: stalls.map((s) => s.consumer) },
          'no bytesSent from the broker: what the transport absorbed stays unknown',
        ),
    );
    this.sampling.push(asked);
  }

  private named(names: string[]): Array<ChildHandle<'consumer'>> {
    return this.context.cluster.consumers.filter((c) => names.includes(c.name));
  }

  private subscribe(name: string, event: 'joined' | 'restart'): void {
    const { cluster, eventLog, watch } = this.context;
    const started = this.brokerBack
      .then(() => cluster.addConsumer(name))
      .then((c) => {
        if (c === undefined) return; // a foreign consumer that did not start: its contract failure says so
        eventLog.record({ type: event, consumer: c.name, pid: c.pid });
        watch.watchConsumer(c);
      });
    started.catch(() => {});
    this.starting.push(started);
    if (event === 'restart') {
      // A failed start fails the run through `starting`; whoever waits for the successor only waits.
      const settled = started.then(
        () => {},
        () => {},
      );
      this.successors.set(name, settled);
      void settled.then(() => this.successors.get(name) === settled && this.successors.delete(name));
    }
  }

  /**
   * A process fault (freeze, slow, crash) of a consumer whose successor is still starting waits until
   * it is ready, and every later step with it (the plan's order holds; its times slip, as the event log
   * records): until then the consumer's handle is its dead predecessor's, and the signal would hit
   * nothing. Found by --nemesis random seed 13: a second crash 0.33 s into a restart SIGKILLed the
   * dead process, the successor lived on, and the planned restart met `nameInUse` (exit 1).
   */
  private async successorsOf(names: string[]): Promise<void> {
    const waits = names.flatMap((name) => this.successors.get(name) ?? []);
    if (waits.length > 0) await this.context.watch.guard(Promise.all(waits));
  }

  async phase({ phase }: { phase: PhaseName }): Promise<void> {
    const { cluster, eventLog, clock, logger, observer, mode } = this.context;
    // The `stalled` phase is the fault window: the costs "during the stall" are measured over it.
    if (phase === 'stalled') {
      this.record.publishedBeforeStall = await this.publishedNow();
      this.record.stallWindow.from = wallClockMs();
    }
    if (phase === 'recovering') this.record.stallWindow.to = wallClockMs();
    this.phaseNow = phase;
    eventLog.record({ type: 'phase', phase });
    setLogPhase(phase);
    for (const child of everyone(cluster)) child.send({ type: 'phase', phase });
    logger.info({ at: clock.seconds() }, 'phase'); // the mixin adds `phase`
    this.context.onPhase(phase);
    observer.phase(mode, phase, clock.seconds());
    if (phase === 'recovering')
      this.record.publishedInStall = (await this.publishedNow()) - this.record.publishedBeforeStall;
  }

  publish({ durationMs }: { durationMs: number }): void {
    this.context.cluster.publisher.send({ type: 'start', durationMs });
    this.context.cluster.rogue?.send({ type: 'start', durationMs: 0 });
  }

  /**
   * SIGSTOP, and once each is confirmed stopped (nemesis.ts) the log line, and a question to the
   * broker of what it had sent them: the transport's share of the stall counts from its answer,
   * so from when they could no longer read. A freeze that opens the fault window opens it at the
   * confirmation (the last of them), and the publisher's count in the stall starts there too.
   */
  async freeze({ consumers }: { consumers: string[] }): Promise<void> {
    const { watch, logger } = this.context;
    await this.successorsOf(consumers);
    const targets = this.named(consumers);
    const opens = this.opensWindow();
    const outcomes = await watch.guard(this.nemesis.freeze(targets));
    const frozen = outcomes.filter((o) => o.confirmed);
    for (const o of outcomes.filter((o) => !o.confirmed))
      logger.warn(
        { consumer: o.target.name, childPid: o.target.pid, waitedMs: o.waitedMs },
        'stall not started: the consumer exited before its SIGSTOP took effect',
      );
    if (frozen.length === 0) return;
    logger.info({ consumers: confirmedPids(frozen) }, 'stall started');
    const stalls = frozen.map((o): StallBytes => ({ consumer: o.target.name, atFreeze: null, atThaw: null }));
    this.record.stallBytes.push(...stalls);
    this.open.push(...stalls);
    this.sampleBytes(stalls, (stall, sample) => (stall.atFreeze = sample));
    if (opens) {
      this.record.stallWindow.from = Math.max(...frozen.map((o) => o.wallMs));
      this.record.publishedBeforeStall = await this.publishedNow();
    }
  }

  /** SIGCONT, and once each is confirmed running again: its recovery counts from then, the log line, and the broker's
   * bytes at the thaw. */
  async thaw({ consumers }: { consumers: string[] }): Promise<void> {
    const outcomes = await this.context.watch.guard(this.nemesis.thaw(this.named(consumers)));
    const thawed = outcomes.filter((o) => o.confirmed);
    for (const o of thawed) this.record.recoveredAt[o.target.name] = o.wallMs;
    if (thawed.length > 0) this.context.logger.info({ consumers: confirmedPids(thawed) }, 'stall ended');
    const names = thawed.map((o) => o.target.name);
    const closing = this.open.filter((s) => names.includes(s.consumer));
    this.open = this.open.filter((s) => !consumers.includes(s.consumer));
    this.sampleBytes(closing, (stall, sample) => (stall.atThaw = sample));
  }

  /** True when no fault has started since the `stalled` phase began: the next one to take effect opens the fault
   * window. */
  private opensWindow(): boolean {
    const { events } = this.context.eventLog;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.type === 'phase') return e.phase === 'stalled';
      if (FAULT_STARTS.has(e.type)) return false;
    }
    return false;
  }

  async slow({ consumer, percent }: { consumer: string; percent: number }): Promise<void> {
    await this.successorsOf([consumer]);
    const [target] = this.named([consumer]);
    if (target === undefined) return;
    this.nemesis.slow(target, percent);
    this.context.logger.info({ consumer, pid: target.pid, percent }, 'slow started');
  }

  unslow({ consumer }: { consumer: string }): void {
    const tally = this.nemesis.unslow(consumer);
    this.record.recoveredAt[consumer] = wallClockMs();
    this.context.logger.info({ consumer, ...tally }, 'slow ended');
  }

  async crash({ consumer }: { consumer: string }): Promise<void> {
    await this.successorsOf([consumer]);
    const [target] = this.named([consumer]);
    if (target === undefined) return;
    this.context.watch.expectExit(target);
    this.crashed.set(consumer, target);
    this.nemesis.crash(target);
    this.context.logger.info({ consumer, pid: target.pid }, 'crashed (SIGKILL)');
  }

  /**
   * The successor subscribes only once the broker has forgotten its predecessor:
   * its exit is seen (the watcher then sends endSubscriber) and a status round trip
   * proves the broker took that message (IPC is ordered); otherwise the new HELLO
   * could meet `nameInUse`.
   */
  async restart({ consumer }: { consumer: string }): Promise<void> {
    const { watch, cluster } = this.context;
    const predecessor = this.crashed.get(consumer);
    await watch.guard(this.brokerBack); // the broker must be there to forget the predecessor and take the successor
    if (predecessor !== undefined) {
      await watch.guard(predecessor.exited);
      cluster.broker.send({ type: 'endSubscriber', name: consumer, reason: 'crashed (planned)' });
      await watch.guard(cluster.broker.status(STATUS_TIMEOUT_MS));
      this.crashed.delete(consumer);
    }
    this.nemesis.restarted(consumer);
    this.record.recoveredAt[consumer] = wallClockMs();
    this.subscribe(consumer, 'restart');
  }

  /**
   * SIGKILL the broker, and once it is gone tell the publisher and every consumer: our QUIC
   * library answers a packet for a connection it does not know with nothing, not a stateless
   * reset, so without this they would wait out their idle timeout (measured: the client saw
   * ErrorQUICConnectionIdleTimeout exactly one timeout after the last packet, reads and
   * writes alike, with a new broker on the port or none). A consumer still subscribing is
   * waited for first: its first connection has no reconnect, and would fail the run.
   */
  async brokerCrash(): Promise<void> {
    const { cluster, watch, logger } = this.context;
    await watch.guard(Promise.all(this.starting));
    const broker = cluster.broker;
    watch.expectExit(broker);
    this.brokerBack = new Promise<void>((resolve, reject) => (this.brokerReturned = { resolve, reject }));
    this.brokerBack.catch(() => {}); // a failed restart fails the run through `starting`
    this.nemesis.crashBroker(broker);
    this.brokerKilledAt = wallClockMs();
    // A stall open across the crash has its bytes at freeze from this broker and at thaw from the
    // next, which counts from zero: no difference of the two means anything, so none is reported.
    for (const stall of this.open) stall.atFreeze = null;
    logger.info({ childPid: broker.pid }, 'broker crashed (SIGKILL)');
    await watch.guard(broker.exited); // so that no reconnect reaches the dying process
    for (const client of [cluster.publisher, ...cluster.consumers]) client.send({ type: 'brokerLost' });
  }

  /**
   * A new broker on the same port (the clients reconnect to the endpoint they know), with the
   * same certificate, token and data dir. Not awaited by the plan (booting takes a while, and
   * a thaw at this instant must not wait for it); a consumer that starts now waits for it, and
   * publishDone and the end wait for it. Its death from here on ends the run as usual.
   */
  brokerRestart(): void {
    const { cluster, watch, logger } = this.context;
    const restarted = cluster.restartBroker().then((broker) => {
      watch.watchBroker(broker);
      // it missed the phase changes of its predecessor's life
      if (this.phaseNow !== undefined) broker.send({ type: 'phase', phase: this.phaseNow });
      this.nemesis.brokerRestarted(broker);
      this.record.brokerOutages.push({ from: this.brokerKilledAt, to: wallClockMs() });
      logger.info({ childPid: broker.pid, port: broker.port }, 'broker restarted');
    });
    restarted.then(this.brokerReturned.resolve, this.brokerReturned.reject);
    this.starting.push(restarted);
  }

  /** The relay of `target` (started with the cluster for every client with a network fault). */
  private relayOf(target: string): ChildHandle<'relay'> {
    const relay = this.context.cluster.relays.get(target);
    if (relay === undefined) throw new RunError('E_PLAN', `${target} has a network fault but no relay`);
    return relay;
  }

  netFault({ target, fault }: { target: string; fault: Fault }): void {
    const relay = this.relayOf(target);
    this.nemesis.shapeLink(relay, fault);
    this.context.logger.info(
      { client: target, relay: relay.name, fault: describeFault(fault) },
      'network fault started',
    );
  }

  netHeal({ target }: { target: string }): void {
    const relay = this.relayOf(target);
    this.nemesis.healLink(relay, target);
    this.record.recoveredAt[target] = wallClockMs();
    this.context.logger.info({ client: target, relay: relay.name }, 'network fault ended');
  }

  join({ consumer }: { consumer: string }): void {
    this.subscribe(consumer, 'joined');
  }

  /** The publisher's `done` (what it published), bounded: a publisher that never says it fails the run. */
  private done(): Promise<number> {
    const done = withDeadline(
      this.publisherDone,
      this.context.phaseMs + 10_000,
      'the publisher did not report `done` after its publishing time; see its log',
    );
    return this.context.watch.guard(done);
  }

  /**
   * Publishing is over: before anything else happens at this instant (a thaw), the publisher's last
   * change is made and the broker has taken it, so nothing is published after the thaw. A condition,
   * not a clock: on a busy machine the publisher's pacer runs up to a second behind its schedule, and
   * the broker behind it (a 500 ms bound here let a lagging publisher's last changes reach a thawed
   * consumer at a load of 13: "the seed's rule" left it with 0 of 12 keys wrong). After a broker
   * restart its head is not comparable with what was published (drain.ts), so only the `done` is
   * waited for. A mode
   * that throttles the publisher holds it while a consumer is frozen, by design: waiting would only
   * lengthen the stall, so there the thaw does not wait.
   */
  async publishEnd(): Promise<void> {
    if (throttlesPublisher(this.context.mode)) return;
    const published = await this.done();
    if (this.record.brokerOutages.length > 0 || this.nemesis.brokerAway) return;
    const { broker } = this.context.cluster;
    const deadline = performance.now() + this.context.phaseMs + 10_000;
    while ((await this.context.watch.guard(broker.status(STATUS_TIMEOUT_MS))).head < published) {
      if (performance.now() > deadline)
        return this.context.logger.warn(
          { published },
          "the broker did not take the publisher's last change in time; going on",
        );
      await sleep(LAST_CHANGE_POLL_MS);
    }
  }

  async publishDone(): Promise<void> {
    const { watch, eventLog } = this.context;
    await watch.guard(Promise.all(this.starting));
    this.record.published = await this.done();
    eventLog.record({ type: 'publisher-done', published: this.record.published });
  }

  async end(): Promise<void> {
    await this.context.watch.guard(Promise.all(this.starting));
    await Promise.all(this.sampling); // each settles within STATUS_TIMEOUT_MS, and never rejects
  }
}
