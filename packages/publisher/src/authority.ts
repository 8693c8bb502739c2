import type { Change } from '@state-divergence/protocol';
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
  private version = 0;
  private readonly random: () => number;
  private readonly chooseKey: (u32: number) => number;

  constructor(
    keys: number,
    seed: number,
    private readonly payloadLength: number,
  ) {
    this.versions = new Float64Array(keys);
    this.values = new Uint32Array(keys);
    this.random = createPrng(seed);
    this.chooseKey = createKeyChooser(keys);
  }

  get lastVersion(): number {
    return this.version;
  }

  next(publishedAt: number): Change {
    const key = this.chooseKey(this.random());
    const value = this.random();
    const version = ++this.version;
    this.versions[key] = version;
    this.values[key] = value;
    return { key, version, value, publishedAt, payloadLength: this.payloadLength };
  }
}
