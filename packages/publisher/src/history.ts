import { ensureRoom } from '@state-divergence/runtime';

/**
 * Every change ever published, indexed by version - 1 (versions are 1, 2, 3, ...):
 * the checker needs it to tell a stale value from one the publisher never
 * emitted. 9 bytes per change; a default run publishes ~5k.
 */
export class ChangeHistory {
  private keys = new Uint32Array(4096);
  private values = new Uint32Array(4096);
  private deleted = new Uint8Array(4096);
  private count = 0;

  record(key: number, value: number, deleted: boolean): void {
    this.keys = ensureRoom(this.keys, this.count);
    this.values = ensureRoom(this.values, this.count);
    this.deleted = ensureRoom(this.deleted, this.count);
    this.keys[this.count] = key;
    this.values[this.count] = value;
    this.deleted[this.count] = deleted ? 1 : 0;
    this.count += 1;
  }

  snapshot(): { keys: Uint32Array; values: Uint32Array; deleted: Uint8Array } {
    return {
      keys: this.keys.slice(0, this.count),
      values: this.values.slice(0, this.count),
      deleted: this.deleted.slice(0, this.count),
    };
  }
}
