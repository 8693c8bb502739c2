import { createKeyChooser, keyName } from '@state-divergence/protocol';
import { createPrng } from '@state-divergence/runtime';

/** One change of the workload: the key, and its new value (null deletes it). */
export interface Change {
  readonly key: string;
  readonly value: string | null;
}

/**
 * The seed's workload as our publisher draws it (publisher/src/authority.ts): the same PRNG,
 * three draws per change, the same Zipf key chooser and key names, so `--seed S` writes the same
 * keys into a real system as into our broker. The value carries the change's number and the
 * drawn word, padded to `payload` bytes, so a value the run never wrote cannot pass for one.
 */
export function workload(options: { keys: number; seed: number; payload: number; deleteRatio: number }): () => Change {
  const random = createPrng(options.seed);
  const chooseKey = createKeyChooser(options.keys);
  let count = 0;
  return () => {
    const key = keyName(chooseKey(random()));
    const drawn = random();
    const deleted = random() / 0x1_0000_0000 < options.deleteRatio;
    count += 1;
    if (deleted) return { key, value: null };
    const stamp = `${count}:${drawn.toString(16)}:`;
    return { key, value: stamp + 'v'.repeat(Math.max(0, options.payload - stamp.length)) };
  };
}
