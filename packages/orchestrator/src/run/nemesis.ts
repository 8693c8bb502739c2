import { CLEAR_LINK } from '@state-divergence/protocol';
import { wallClockMs } from '@state-divergence/runtime';
import { RunError } from '../model/errors.js';
import { linkShapeOf } from '../model/link-shape-of.js';
import {
  BROKER,
  isNetworkKind,
  SLOW_PERIOD_MS,
  type Fault,
  type FaultKind,
  type NetworkFaultKind,
} from '../model/faults.js';
import type { ChildHandle } from './child/child-handle.js';
import type { Confirmation } from './child/confirm-state.js';
import type { EventLog } from './event-log.js';

/** A slowed consumer's duty cycle: the period's timer and the SIGCONT that ends its stopped share. */
interface Throttle {
  timer: NodeJS.Timeout | undefined;
  pendingThaw: NodeJS.Timeout | undefined;
  /** A period's SIGCONT is due (its SIGSTOP was sent and not answered yet). */
  thawDue: boolean;
  target: ChildHandle;
  tally: SlowTally;
}

/** A slow's periods: how many got their SIGSTOP, and in how many the process was seen stopped when its SIGCONT was due.
 * */
export interface SlowTally {
  periods: number;
  stoppedPeriods: number;
}

/**
 * A freeze or a thaw as it took effect: `waitedMs` from the signal until /proc showed it, `wallMs`
 * (Date.now) then. `confirmed` false: the process exited before it did (its death is the watcher's).
 */
export interface Confirmed {
  target: ChildHandle;
  confirmed: boolean;
  waitedMs: number;
  wallMs: number;
}

/**
 * How long ago /proc showed a confirmed freeze or thaw: its event is dated then, so that its time
 * less its `waitedMs` is the moment just before the signal (measured: a thaw's continuation ran
 * 5.9 ms after its confirmation once in 16 under two CPU hogs).
 */
const sinceDecided = (confirmation: Confirmation): number =>
  confirmation.outcome === 'confirmed' ? performance.now() - confirmation.decidedAt : 0;

/**
 * The faults, each with a matching start and stop, each recorded with its pid
 * (Jepsen's nemesis); a freeze and a thaw when /proc shows them done, not when
 * their signal is sent. A frozen process stops reading its socket without closing
 * it: to the broker it is a consumer that is merely slow. A slowed one is frozen
 * for part of every period, like a container throttled by its CPU quota. A
 * crashed one is SIGKILLed: its process, subscription and local copy are gone.
 * A crashed broker takes every subscription and, unless it keeps a log, every
 * offset and table with it.
 */
export class Nemesis {
  private readonly throttles = new Map<string, Throttle>();
  /** Confirmed stopped (state T), until their SIGCONT is sent. */
  private readonly frozen = new Set<string>();
  private readonly crashed = new Set<string>();
  /** Clients whose link is shaped now, and how. */
  private readonly links = new Map<string, NetworkFaultKind>();
  private brokerDown = false;
  private restarts = 0;

  constructor(private readonly eventLog: EventLog) {}

  /**
   * SIGSTOP to every target at once (one step freezes them together), then each is frozen once
   * /proc shows its whole process group stopped: only then is it recorded, and only then does the
   * live view call it STALLED. A target that exits first is not frozen (`confirmed` false); one
   * that is still not stopped after the bound fails the run: a stall that cannot be confirmed
   * would make every figure measured in it a guess.
   */
  async freeze(targets: ChildHandle[]): Promise<Confirmed[]> {
    for (const target of targets) target.freeze();
    return Promise.all(
      targets.map(async (target) => {
        const confirmation = await target.confirm('stopped');
        const done = this.settle(target, confirmation, 'SIGSTOP');
        if (done.confirmed) {
          this.frozen.add(target.name);
          this.eventLog.record(
            { type: 'freeze', consumer: target.name, pid: target.pid, waitedMs: done.waitedMs },
            sinceDecided(confirmation),
          );
        }
        return done;
      }),
    );
  }

  /**
   * SIGCONT to every target that was confirmed frozen, then each is thawed once /proc shows none
   * of its group stopped. It stops being STALLED before its SIGCONT is sent, never after: the live
   * view must not call a running process frozen.
   */
  async thaw(targets: ChildHandle[]): Promise<Confirmed[]> {
    const thawing = targets.filter((target) => this.frozen.delete(target.name));
    // one that exited before its stop took effect: harmless
    for (const target of targets) if (target.frozen) target.thaw();
    return Promise.all(
      thawing.map(async (target) => {
        const confirmation = await target.confirm('running');
        const done = this.settle(target, confirmation, 'SIGCONT');
        if (done.confirmed)
          this.eventLog.record(
            { type: 'thaw', consumer: target.name, pid: target.pid, waitedMs: done.waitedMs },
            sinceDecided(confirmation),
          );
        return done;
      }),
    );
  }

  private settle(target: ChildHandle, confirmation: Confirmation, signal: 'SIGSTOP' | 'SIGCONT'): Confirmed {
    if (confirmation.outcome === 'timeout') {
      const seen = Object.entries(confirmation.states)
        .map(([pid, states]) => `pid ${pid}: ${states.join('') || 'gone'}`)
        .join(', ');
      const wanted = signal === 'SIGSTOP' ? 'stopped (state T)' : 'running again (no thread in state T)';
      throw new RunError(
        'E_SIGNAL',
        `${target.name} (pid ${target.pid}) was sent ${signal} and is not ${wanted} after ` +
          `${(confirmation.waitedMs / 1000).toFixed(1)} s; its threads' states: ${seen}`,
      );
    }
    return {
      target,
      confirmed: confirmation.outcome === 'confirmed',
      waitedMs: confirmation.waitedMs,
      wallMs: wallClockMs(),
    };
  }

  /**
   * Stopped `percent` % of every period until `unslow`: SIGSTOP at the period's start, SIGCONT after
   * its share. Confirming each SIGSTOP by polling /proc would cost more than the period; instead
   * one read just before each SIGCONT says whether that period's stop took effect (a SIGCONT sent
   * before it did cancels it: that period was never stopped). `unslow` reports the count.
   */
  slow(target: ChildHandle, percent: number): void {
    const stoppedMs = (SLOW_PERIOD_MS * percent) / 100;
    const throttle: Throttle = {
      timer: undefined,
      pendingThaw: undefined,
      thawDue: false,
      target,
      tally: { periods: 0, stoppedPeriods: 0 },
    };
    const cycle = () => {
      if (!target.alive) return;
      target.freeze();
      throttle.tally.periods += 1;
      throttle.thawDue = true;
      throttle.pendingThaw = setTimeout(() => this.endPeriod(throttle), stoppedMs);
    };
    cycle();
    throttle.timer = setInterval(cycle, SLOW_PERIOD_MS);
    this.throttles.set(target.name, throttle);
    this.eventLog.record({ type: 'slow', consumer: target.name, pid: target.pid, percent });
  }

  /** A period's SIGCONT, after one read of whether its SIGSTOP took effect. */
  private endPeriod(throttle: Throttle): void {
    if (throttle.thawDue && throttle.target.stoppedNow()) throttle.tally.stoppedPeriods += 1;
    throttle.thawDue = false;
    throttle.target.thaw();
  }

  /** Ends the duty cycle with the last period's SIGCONT; its tally (undefined: it was not slowed). */
  unslow(name: string): SlowTally | undefined {
    const throttle = this.throttles.get(name);
    if (throttle === undefined) return undefined;
    clearInterval(throttle.timer);
    // The cycle's SIGCONT must not fire later: a stall that starts where this slow ends would be undone by it.
    clearTimeout(throttle.pendingThaw);
    this.throttles.delete(name);
    this.endPeriod(throttle);
    this.eventLog.record({ type: 'unslow', consumer: name, pid: throttle.target.pid, ...throttle.tally });
    return throttle.tally;
  }

  crash(target: ChildHandle): void {
    target.kill();
    this.crashed.add(target.name);
    this.eventLog.record({ type: 'crash', consumer: target.name, pid: target.pid });
  }

  /** The crashed consumer's successor is starting: the crash is over. */
  restarted(name: string): void {
    this.crashed.delete(name);
  }

  crashBroker(target: ChildHandle<'broker'>): void {
    target.kill();
    this.brokerDown = true;
    this.eventLog.record({ type: 'broker-crash', pid: target.pid });
  }

  /** The new broker is listening: the outage is over. */
  brokerRestarted(successor: ChildHandle<'broker'>): void {
    this.brokerDown = false;
    this.restarts += 1;
    this.eventLog.record({ type: 'broker-restart', pid: successor.pid, restarts: this.restarts });
  }

  /**
   * A network fault on `client`'s link: its relay shapes both directions from now on (datagrams
   * already held by a delay still leave at their time). The client itself is untouched: it runs on,
   * and only its transport notices.
   */
  shapeLink(relay: ChildHandle<'relay'>, fault: Fault): void {
    if (!isNetworkKind(fault.kind)) throw new Error(`${fault.kind} is not a network fault`);
    const shape = linkShapeOf(fault);
    relay.send({ type: 'shape', up: shape, down: shape });
    this.links.set(fault.consumer, fault.kind);
    this.eventLog.record({ type: 'net-fault', consumer: fault.consumer, fault });
  }

  /** `client`'s link carries everything again (its relay forwards unshaped). */
  healLink(relay: ChildHandle<'relay'>, client: string): void {
    relay.send({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK });
    this.links.delete(client);
    this.eventLog.record({ type: 'net-heal', consumer: client });
  }

  /** Between the broker's SIGKILL and its successor's `ready`: nobody can ask it anything. */
  get brokerAway(): boolean {
    return this.brokerDown;
  }

  /** The fault a consumer (or the broker, or the publisher's link) is under right now, if any (the live view shows it).
   * */
  activeFault(name: string): FaultKind | null {
    if (name === BROKER) return this.brokerDown ? 'crash' : null;
    if (this.frozen.has(name)) return 'stall';
    if (this.throttles.has(name)) return 'slow';
    if (this.crashed.has(name)) return 'crash';
    return this.links.get(name) ?? null;
  }

  /** Ends every fault still running (a run that ends early must not leave a consumer throttled). */
  stop(): void {
    for (const name of [...this.throttles.keys()]) this.unslow(name);
  }
}
