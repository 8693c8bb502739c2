import type { Change } from '@state-divergence/protocol';

export interface Entry {
  version: number;
  value: number;
}

/**
 * A consumer's local copy of the keyspace: last write wins by version. This is
 * all a change-stream consumer can do; nothing in it can notice a missed event.
 */
export class LocalCopy {
  private readonly entries = new Map<number, Entry>();

  apply(change: Change): void {
    const held = this.entries.get(change.key);
    if (held === undefined) this.entries.set(change.key, { version: change.version, value: change.value });
    else if (held.version < change.version) {
      held.version = change.version;
      held.value = change.value;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  toTriples(): Array<[number, number, number]> {
    return Array.from(this.entries, ([key, { version, value }]) => [key, version, value]);
  }
}
