import { BROKER, SLOW_PERIOD_MS, type FaultKind } from '../model/faults.js';
import type { ChildHandle } from './child/child-handle.js';
import type { Timeline } from './timeline.js';

/** A slowed consumer's duty cycle: the period's timer and the SIGCONT that ends its stopped share. */
interface Throttle {
  timer: NodeJS.Timeout | undefined;
  pendingThaw: NodeJS.Timeout | undefined;
  target: ChildHandle;
}

/**
 * The faults, each with a matching start and stop, each recorded with its pid
 * (Jepsen's nemesis). A frozen process stops reading its socket without closing
 * it: to the broker it is a consumer that is merely slow. A slowed one is frozen
 * for part of every period, like a container throttled by its CPU quota. A
 * crashed one is SIGKILLed: its process, subscription and local copy are gone.
 * A crashed broker takes every subscription and, unless it keeps a log, every
 * offset and table with it.
 */
export class Nemesis {
  private readonly throttles = new Map<string, Throttle>();
  private readonly frozen = new Set<string>();
  private readonly crashed = new Set<string>();
  private brokerDown = false;
  private restarts = 0;

  constructor(private readonly timeline: Timeline) {}

  freeze(targets: ChildHandle[]): void {
    for (const target of targets) {
      target.freeze();
      this.frozen.add(target.name);
      this.timeline.record({ type: 'freeze', consumer: target.name, pid: target.pid });
    }
  }

  thaw(targets: ChildHandle[]): void {
    for (const target of targets) {
      this.frozen.delete(target.name);
      if (!target.frozen) continue;
      target.thaw();
      this.timeline.record({ type: 'thaw', consumer: target.name, pid: target.pid });
    }
  }

  /** Stopped `percent` % of every period until `unslow`: SIGSTOP at the period's start, SIGCONT after its share. */
  slow(target: ChildHandle, percent: number): void {
    const stoppedMs = (SLOW_PERIOD_MS * percent) / 100;
    const throttle: Throttle = { timer: undefined, pendingThaw: undefined, target };
    const cycle = () => {
      if (!target.alive) return;
      target.freeze();
      throttle.pendingThaw = setTimeout(() => target.thaw(), stoppedMs);
    };
    cycle();
    throttle.timer = setInterval(cycle, SLOW_PERIOD_MS);
    this.throttles.set(target.name, throttle);
    this.timeline.record({ type: 'slow', consumer: target.name, pid: target.pid, percent });
  }

  unslow(name: string): void {
    const throttle = this.throttles.get(name);
    if (throttle === undefined) return;
    clearInterval(throttle.timer);
    // The cycle's SIGCONT must not fire later: a stall that starts where this slow ends would be undone by it.
    clearTimeout(throttle.pendingThaw);
    this.throttles.delete(name);
    throttle.target.thaw();
    this.timeline.record({ type: 'unslow', consumer: name, pid: throttle.target.pid });
  }

  crash(target: ChildHandle): void {
    target.kill();
    this.crashed.add(target.name);
    this.timeline.record({ type: 'crash', consumer: target.name, pid: target.pid });
  }

  /** The crashed consumer's successor is starting: the crash is over. */
  restarted(name: string): void {
    this.crashed.delete(name);
  }

  crashBroker(target: ChildHandle<'broker'>): void {
    target.kill();
    this.brokerDown = true;
    this.timeline.record({ type: 'broker-crash', pid: target.pid });
  }

  /** The new broker is listening: the outage is over. */
  brokerRestarted(successor: ChildHandle<'broker'>): void {
    this.brokerDown = false;
    this.restarts += 1;
    this.timeline.record({ type: 'broker-restart', pid: successor.pid, restarts: this.restarts });
  }

  /** Between the broker's SIGKILL and its successor's `ready`: nobody can ask it anything. */
  get brokerAway(): boolean {
    return this.brokerDown;
  }

  /** The fault a consumer (or the broker) is under right now, if any (the live view shows it). */
  activeFault(name: string): FaultKind | null {
    if (name === BROKER) return this.brokerDown ? 'crash' : null;
    if (this.frozen.has(name)) return 'stall';
    if (this.throttles.has(name)) return 'slow';
    if (this.crashed.has(name)) return 'crash';
    return null;
  }

  /** Ends every fault still running (a run that ends early must not leave a consumer throttled). */
  stop(): void {
    for (const name of [...this.throttles.keys()]) this.unslow(name);
  }
}
