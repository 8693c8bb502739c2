import type { Change } from '@state-divergence/protocol';
import { ChangeHistory } from './history.js';
import { createKeyChooser } from './key-chooser.js';
import { createPrng } from '@state-divergence/runtime';

/**
 * The authoritative keyspace and the change sequence that drives it, in two steps.
 * draw() makes the next change (key, value, version) from the seed and records it in
 * the history, whatever becomes of it; commit() enters a change the broker acknowledged
 * into the keyspace. So the keyspace holds exactly what the broker accepted, and a seed
 * gives the same changes however many of them a broker crash discards.
 */
export class Authority {
  readonly versions: Float64Array;
  readonly values: Uint32Array;
  /** 1 where the key's last committed change deleted it. */
  readonly deleted: Uint8Array;
  /** Every drawn change, indexed by version - 1: committed, pending or discarded. */
  readonly history = new ChangeHistory();
  private version = 0;
  private readonly random: () => number;
  private readonly chooseKey: (u32: number) => number;

  constructor(
    keys: number,
    seed: number,
    private readonly payloadLength: number,
    private readonly deleteRatio = 0,
  ) {
    this.versions = new Float64Array(keys);
    this.values = new Uint32Array(keys);
    this.deleted = new Uint8Array(keys);
    this.random = createPrng(seed);
    this.chooseKey = createKeyChooser(keys);
  }

  /** The last version drawn (committed or not). */
  get lastVersion(): number {
    return this.version;
  }

  draw(publishedAt: number): Change {
    // Three draws per change, always, so a seed's sequence does not depend on the ratio's outcomes.
    const key = this.chooseKey(this.random());
    const drawn = this.random();
    const deleted = this.random() / 0x1_0000_0000 < this.deleteRatio;
    const value = deleted ? 0 : drawn;
    const version = ++this.version;
    this.history.record(key, value, deleted);
    return { key, version, value, deleted, publishedAt, payloadLength: this.payloadLength };
  }

  /** Acknowledged changes arrive in version order, so the last commit of a key is its latest. */
  commit(change: Change): void {
    this.versions[change.key] = change.version;
    this.values[change.key] = change.value;
    this.deleted[change.key] = change.deleted ? 1 : 0;
  }
}
