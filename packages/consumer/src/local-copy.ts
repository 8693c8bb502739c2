import { StateDigest, type Change } from '@state-divergence/protocol';

interface Entry {
  version: number;
  value: number;
  deleted: boolean;
}

/** One held key, tombstones included: what a checkpoint stores. */
export type HeldEntry = [key: number, version: number, value: number, deleted: boolean];

/**
 * A consumer's local copy of the keyspace: last write wins by version, and a
 * delete leaves a tombstone (so an older write arriving in a delta cannot bring
 * a deleted key back). Applying a change is all a change-stream consumer can do;
 * nothing in it can notice a missed event.
 */
export class LocalCopy {
  private entries = new Map<number, Entry>();

  static fromEntries(held: Iterable<HeldEntry>): LocalCopy {
    const copy = new LocalCopy();
    for (const [key, version, value, deleted] of held) copy.entries.set(key, { version, value, deleted });
    return copy;
  }

  /** Returns false when the change is older than what is held (ignored). */
  apply(change: Change): boolean {
    const held = this.entries.get(change.key);
    if (held === undefined) {
      this.entries.set(change.key, { version: change.version, value: change.value, deleted: change.deleted });
      return true;
    }
    if (held.version >= change.version) return false;
    held.version = change.version;
    held.value = change.value;
    held.deleted = change.deleted;
    return true;
  }

  /**
   * A snapshot is the whole truth, as a relist is: the copy becomes `snapshot`, and every
   * live key it lacks is removed. Returns those as [key, version it had].
   */
  replaceWith(snapshot: LocalCopy): Array<[number, number]> {
    const removed: Array<[number, number]> = [];
    for (const [key, entry] of this.entries)
      if (!entry.deleted && !snapshot.entries.has(key)) removed.push([key, entry.version]);
    this.entries = snapshot.entries;
    snapshot.entries = new Map();
    return removed;
  }

  /** Every held key, tombstones included. */
  held(): HeldEntry[] {
    return Array.from(this.entries, ([key, e]): HeldEntry => [key, e.version, e.value, e.deleted]);
  }

  get liveKeys(): number {
    let live = 0;
    for (const entry of this.entries.values()) if (!entry.deleted) live += 1;
    return live;
  }

  /** Live keys as [key, version, value]: what the consumer would serve. */
  toTriples(): Array<[number, number, number]> {
    const triples: Array<[number, number, number]> = [];
    for (const [key, entry] of this.entries) if (!entry.deleted) triples.push([key, entry.version, entry.value]);
    return triples;
  }

  /** Each key's live version (0: not held, or deleted), indexed by key. */
  versions(): Float64Array {
    let size = 0;
    for (const key of this.entries.keys()) if (key + 1 > size) size = key + 1;
    const versions = new Float64Array(size);
    for (const [key, entry] of this.entries) if (!entry.deleted) versions[key] = entry.version;
    return versions;
  }

  digest(): StateDigest {
    const digest = new StateDigest();
    for (const [key, entry] of this.entries) if (!entry.deleted) digest.add(key, entry.version);
    return digest;
  }
}
