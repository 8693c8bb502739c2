import { publishBodyVersion } from '@state-divergence/protocol';
import { decodeRecord, encodeRecord, type StoredRecord } from './record.js';
import { LogRefusal } from './refusal.js';
import { trimToRetention } from './retention.js';
import { META_KEYS, type LogStores } from './stores.js';
import type { LogRecovery } from './types.js';

function versionOf(dir: string, where: string, record: StoredRecord): number {
  try {
    return publishBodyVersion(record.body);
  } catch {
    throw new LogRefusal(dir, `${where} holds ${record.body.length} bytes that are not a PUBLISH body`);
  }
}

/**
 * The durable log's crash recovery, run by DurableLog.open (not a subscriber's resync, which is
 * subscriber/resync-delta.ts). Reads the whole log back from its tail, checking every record, and
 * repairs what a crash can leave. A record that fails its CRC, or is shorter than its header, is a
 * torn write if it is the last one: dropped and counted. Anywhere else it is corruption, and so is
 * a gap in the offsets or a table entry past the head: refused in one line naming the offset (a
 * log that serves history with a hole in it would be wrong silently).
 *
 * Dropping a torn record also takes back its key's entry in the compacted table (written in the
 * same transaction): the key's previous write is found in the log, or, if retention already
 * removed it, the key leaves the table. Then retention is applied, in case it is smaller than
 * the last incarnation's. All repairs are one transaction; `wrote` says whether there was one.
 */
export function recover(
  dir: string,
  stores: LogStores,
  retention: number | null,
): { recovery: Omit<LogRecovery, 'epoch' | 'created'>; wrote: boolean } {
  const trimmedThrough = stores.meta.get(META_KEYS.trimmedThrough);
  if (typeof trimmedThrough !== 'number' || !Number.isSafeInteger(trimmedThrough) || trimmedThrough < 0) {
    throw new LogRefusal(dir, `its retention watermark is ${JSON.stringify(trimmedThrough)}, not an offset`);
  }

  const table = new Map<number, StoredRecord>();
  for (const { key, value } of stores.latest.getRange({})) {
    const record = decodeRecord(value);
    if (typeof record === 'string')
      throw new LogRefusal(dir, `the compacted table's entry for key ${key} is corrupt (${record})`);
    if (record.key !== key)
      throw new LogRefusal(dir, `the compacted table's entry for key ${key} holds key ${record.key}`);
    table.set(key, record);
  }

  let torn: number | undefined;
  let head: number | undefined;
  let lowest: number | undefined;
  let records = 0;
  let highestVersion = 0;
  /** After a tear: the newest intact record of each key whose table entry the torn record wrote. */
  const replacements = new Map<number, StoredRecord | undefined>();
  for (const { key: offset, value } of stores.log.getRange({ reverse: true })) {
    if (lowest !== undefined && offset !== lowest - 1)
      throw new LogRefusal(dir, `offsets ${offset + 1}..${lowest - 1} are missing from the log`);
    lowest = offset;
    const record = decodeRecord(value);
    if (typeof record === 'string') {
      if (head !== undefined || torn !== undefined)
        throw new LogRefusal(dir, `the record at offset ${offset} is corrupt (${record}) and is not the last one`);
      torn = offset;
      for (const [key, entry] of table) if (entry.offset === offset) replacements.set(key, undefined);
      continue;
    }
    if (record.offset !== offset)
      throw new LogRefusal(dir, `the record at offset ${offset} says it is offset ${record.offset}`);
    head ??= offset;
    records += 1;
    highestVersion = Math.max(highestVersion, versionOf(dir, `the record at offset ${offset}`, record));
    if (replacements.has(record.key) && replacements.get(record.key) === undefined)
      replacements.set(record.key, record);
  }
  if (lowest !== undefined && lowest !== trimmedThrough + 1) {
    throw new LogRefusal(
      dir,
      lowest > trimmedThrough + 1
        ? `offsets ${trimmedThrough + 1}..${lowest - 1} are missing from the log`
        : `it holds offset ${lowest} although retention removed everything through ${trimmedThrough}`,
    );
  }
  // With no intact record, the head is where the log left off: before the torn record, or at the watermark.
  head ??= torn === undefined ? trimmedThrough : torn - 1;
  const finalHead = head;
  for (const [key, entry] of table) {
    if (entry.offset > finalHead && !replacements.has(key))
      throw new LogRefusal(
        dir,
        `the compacted table's entry for key ${key} is at offset ${entry.offset}, past the log's head ${finalHead}`,
      );
  }

  let oldest = records === 0 ? finalHead + 1 : trimmedThrough + 1;
  const needsTrim = retention !== null && records > retention;
  const wrote = torn !== undefined || needsTrim;
  if (wrote) {
    stores.env.transactionSync(() => {
      if (torn !== undefined) stores.log.removeSync(torn);
      for (const [key, previous] of replacements) {
        if (previous === undefined) stores.latest.removeSync(key);
        else stores.latest.putSync(key, encodeRecord(previous.offset, previous.key, previous.body));
      }
      oldest = trimToRetention(stores, oldest, finalHead, retention);
    });
  }
  for (const [key, previous] of replacements) {
    if (previous === undefined) table.delete(key);
    else table.set(key, previous);
  }
  for (const [key, entry] of table)
    highestVersion = Math.max(highestVersion, versionOf(dir, `the compacted table's entry for key ${key}`, entry));

  return {
    recovery: {
      records: finalHead - oldest + 1,
      tornTail: torn === undefined ? 0 : 1,
      head: finalHead,
      oldest,
      highestVersion,
    },
    wrote,
  };
}
