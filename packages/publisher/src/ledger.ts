import type { Change } from '@state-divergence/protocol';
import { ensureRoom } from '@state-divergence/runtime';
import type { Authority } from './authority.js';

/** What became of a version, indexed by version (1 byte each, like the history's 9). */
const HELD = 1;
const LOST = 2;

/**
 * What became of every change the publisher sent: pending until the broker acknowledges it
 * (ACK: every change up to a version), then committed to the authority. When the broker is
 * lost, the first ACK of the broker it reconnects to says what that one holds: pending changes
 * up to it were accepted after all, the rest are discarded (never made, never resent), and
 * committed changes beyond it were lost by the crash.
 */
export class Ledger {
  /** Sent, not acknowledged yet, in version order. */
  private pending: Change[] = [];
  private head = 0;
  /** Highest version acknowledged (committed) so far. */
  private acknowledged = 0;
  /** [key, version] of every discarded change, in version order. */
  readonly discarded: Array<[number, number]> = [];
  /** Committed changes a broker that was reconnected to no longer held (each counted once, at the crash that lost it).
   * */
  acknowledgedLost = 0;
  private fates = new Uint8Array(4096);
  private settledWaiters: Array<() => void> = [];

  constructor(private readonly authority: Authority) {}

  get pendingCount(): number {
    return this.pending.length - this.head;
  }

  get lastAcknowledged(): number {
    return this.acknowledged;
  }

  sent(change: Change): void {
    this.fates = ensureRoom(this.fates, change.version);
    this.pending.push(change);
  }

  /** Resolves once nothing sent is waiting for its acknowledgement. */
  settled(): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private notifySettled(): void {
    if (this.pendingCount > 0) return;
    for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  /** ACK(version): every pending change up to it is committed. */
  acknowledge(version: number): void {
    while (this.head < this.pending.length && this.pending[this.head]!.version <= version) {
      const change = this.pending[this.head]!;
      this.authority.commit(change);
      this.fates[change.version] = HELD;
      this.acknowledged = Math.max(this.acknowledged, change.version);
      this.head += 1;
    }
    // Compact once the acknowledged prefix dominates, so the array does not grow with the run.
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    this.notifySettled();
  }

  /**
   * The first ACK of a broker reached after losing one: it holds every change up to `version`.
   * Returns how many pending changes were discarded.
   */
  reconnected(version: number): number {
    this.acknowledgedLost += this.loseAfter(version);
    this.acknowledge(version);
    const dropped = this.pending.slice(this.head);
    for (const change of dropped) this.discarded.push([change.key, change.version]);
    this.pending = [];
    this.head = 0;
    this.notifySettled();
    return dropped.length;
  }

  /** Marks committed versions above `version` that were still held as lost, and counts them. */
  private loseAfter(version: number): number {
    let lost = 0;
    for (let v = this.acknowledged; v > version; v--) {
      if (this.fates[v] !== HELD) continue;
      this.fates[v] = LOST;
      lost += 1;
    }
    return lost;
  }
}
