import { CLEAR_LINK, PARTITIONED_LINK, type LinkShape } from '@state-divergence/protocol';
import { BROKER, isNetworkKind, SLOW_PERIOD_MS, type Fault, type FaultKind, type NetworkFaultKind } from '../model/faults.js';
import type { ChildHandle } from './child/child-handle.js';
import type { Timeline } from './timeline.js';

/** A slowed consumer's duty cycle: the period's timer and the SIGCONT that ends its stopped share. */
interface Throttle {
  timer: NodeJS.Timeout | undefined;
  pendingThaw: NodeJS.Timeout | undefined;
  target: ChildHandle;
}

/**
 * How a network fault shapes its link, the same both ways (the flags have one value for both):
 * a partition drops everything, a loss drops its share (correlated as asked), a delay holds each datagram.
 */
export function linkShapeOf(fault: Fault): LinkShape {
  if (fault.kind === 'partition') return PARTITIONED_LINK;
  if (fault.kind === 'loss') return { ...CLEAR_LINK, lossPct: fault.lossPct ?? 0, correlationPct: fault.correlationPct ?? 0 };
  if (fault.kind === 'delay') return { ...CLEAR_LINK, delayMs: fault.delayMs ?? 0, jitterMs: fault.jitterMs ?? 0 };
  throw new Error(`${fault.kind} is not a network fault`);
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
  /** Clients whose link is shaped now, and how. */
  private readonly links = new Map<string, NetworkFaultKind>();
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
    this.timeline.record({ type: 'net-fault', consumer: fault.consumer, fault });
  }

  /** `client`'s link carries everything again (its relay forwards unshaped). */
  healLink(relay: ChildHandle<'relay'>, client: string): void {
    relay.send({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK });
    this.links.delete(client);
    this.timeline.record({ type: 'net-heal', consumer: client });
  }

  /** Between the broker's SIGKILL and its successor's `ready`: nobody can ask it anything. */
  get brokerAway(): boolean {
    return this.brokerDown;
  }

  /** The fault a consumer (or the broker, or the publisher's link) is under right now, if any (the live view shows it). */
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
