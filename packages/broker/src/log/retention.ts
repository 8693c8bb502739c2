import { META_KEYS, type LogStores } from './stores.js';

/**
 * Removes the oldest records until at most `retention` remain (null: keep all), and records
 * how far it went (meta trimmedThrough). Called inside the write transaction of the commit (or
 * of recovery) that made the log longer, so the log and the watermark never disagree; the
 * compacted table is never trimmed, so a key's last write outlives its record. Returns the new
 * oldest offset.
 */
export function trimToRetention(stores: LogStores, oldest: number, head: number, retention: number | null): number {
  if (retention === null) return oldest;
  const through = head - retention;
  if (through < oldest) return oldest;
  for (let offset = oldest; offset <= through; offset++) stores.log.removeSync(offset);
  stores.meta.putSync(META_KEYS.trimmedThrough, through);
  return through + 1;
}
