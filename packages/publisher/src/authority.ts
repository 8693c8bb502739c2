import type { Change } from '@state-divergence/protocol';
import { ChangeHistory } from './history.js';
import { createKeyChooser } from './key-chooser.js';
import { createPrng } from './prng.js';

/**
 * The authoritative keyspace and the change sequence that drives it. next()
 * records a change in the authority before anyone can send it, so the
 * authority is never behind what any consumer could have seen.
 */
export class Authority {
  readonly versions: Float64Array;
  readonly values: Uint32Array;
  /** 1 where the key's last change deleted it. */
  readonly deleted: Uint8Array;
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

  get lastVersion(): number {
    return this.version;
  }

  next(publishedAt: number): Change {
    // Three draws per change, always, so a seed's sequence does not depend on the ratio's outcomes.
    const key = this.chooseKey(this.random());
    const drawn = this.random();
    const deleted = this.random() / 0x1_0000_0000 < this.deleteRatio;
    const value = deleted ? 0 : drawn;
    const version = ++this.version;
    this.versions[key] = version;
    this.values[key] = value;
    this.deleted[key] = deleted ? 1 : 0;
    this.history.record(key, value, deleted);
    return { key, version, value, deleted, publishedAt, payloadLength: this.payloadLength };
  }
}
