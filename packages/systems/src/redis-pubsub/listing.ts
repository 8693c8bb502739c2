import type { Redis } from 'ioredis';
import { decodeStored } from '../change-codec.js';
import type { Versioned } from '../target-system.js';
import { keyOf, keyPattern, seqName } from './names.js';

export interface Listing {
  readonly entries: Map<string, Versioned>;
  /** Key names SCAN found: a change to a key it did not find may predate `seq`. */
  readonly scanned: ReadonlySet<string>;
  /** The writer's seq when MGET read the values: the listing is exact for scanned keys at it. */
  readonly seq: number;
}

/** SCAN the run's keys, then MGET them with the writer's seq (one MGET: one moment). */
export async function listKeys(client: Redis, prefix: string): Promise<Listing> {
  const names: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', keyPattern(prefix), 'COUNT', 1000);
    names.push(...found);
    cursor = next;
  } while (cursor !== '0');
  const [seqText, ...values] = await client.mget(seqName(prefix), ...names);
  const entries = new Map<string, Versioned>();
  names.forEach((name, i) => {
    const stored = values[i];
    if (stored !== null && stored !== undefined) entries.set(keyOf(prefix, name), decodeStored(stored));
  });
  return {
    entries,
    scanned: new Set(names.map((name) => keyOf(prefix, name))),
    seq: Number(seqText ?? 0),
  };
}
