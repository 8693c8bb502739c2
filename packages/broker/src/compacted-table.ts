import {
  CHANGE_FIXED_LENGTH,
  encodeEventFromPublishBody,
  eventFrameBytes,
  FrameType,
  StateDigest,
  type Change,
} from '@state-divergence/protocol';

interface Entry {
  key: number;
  version: number;
  offset: number;
  deleted: boolean;
  /** The PUBLISH body of the key's last change, forwarded verbatim in STATE frames. */
  body: Uint8Array;
  older: Entry | undefined;
  newer: Entry | undefined;
}

/** Bytes of one STATE frame carrying `body` (a PUBLISH body). */
const stateFrameBytes = (body: Uint8Array): number => eventFrameBytes(body.length - CHANGE_FIXED_LENGTH);

/**
 * The broker's compacted table: key -> its latest (version, value, offset),
 * with tombstones for deleted keys. Memory is bounded by the keyspace, not by
 * history, yet a resume from any offset N can be served as a delta: every key
 * whose latest offset is > N, in offset order. Entries sit on a list ordered by
 * last-write offset (an update moves an entry to the newest end), so a delta
 * walks only the entries it sends.
 */
export class CompactedTable {
  private readonly byKey = new Map<number, Entry>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  /** Digest of the live (key, version) pairs, kept current on every change. */
  readonly digest = new StateDigest();
  private liveStateBytes = 0;
  /**
   * Each key's last-write offset, indexed by key, kept current on every change:
   * the live view asks for it several times a phase over up to 1,000,000 keys,
   * so an answer must be a copy, not a walk of the map.
   */
  private offsetByKey = new Float64Array(0);

  apply(offset: number, change: Change, body: Uint8Array): void {
    let entry = this.byKey.get(change.key);
    if (entry) {
      this.unlink(entry);
      if (!entry.deleted) {
        this.digest.remove(entry.key, entry.version);
        this.liveStateBytes -= stateFrameBytes(entry.body);
      }
      entry.version = change.version;
      entry.offset = offset;
      entry.deleted = change.deleted;
      entry.body = body;
    } else {
      entry = {
        key: change.key,
        version: change.version,
        offset,
        deleted: change.deleted,
        body,
        older: undefined,
        newer: undefined,
      };
      this.byKey.set(change.key, entry);
    }
    if (!entry.deleted) {
      this.digest.add(entry.key, entry.version);
      this.liveStateBytes += stateFrameBytes(entry.body);
    }
    this.recordOffset(change.key, offset);
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    this.oldest ??= entry;
  }

  /**
   * STATE frames for every key written after `fromOffset`, oldest first, each
   * key once. Tombstones are included: a resync must also remove what is gone.
   * A snapshot (`fromOffset` 0, `liveOnly`) sends only keys that exist.
   */
  stateFramesSince(fromOffset: number, liveOnly = false): Buffer[] {
    const picked: Entry[] = [];
    for (let entry = this.newest; entry !== undefined && entry.offset > fromOffset; entry = entry.older) {
      if (!(liveOnly && entry.deleted)) picked.push(entry);
    }
    picked.reverse();
    return picked.map((entry) => encodeEventFromPublishBody(entry.offset, entry.body, FrameType.state));
  }

  /** What a full snapshot (every live key's STATE frame) would cost in bytes now. */
  get fullSnapshotBytes(): number {
    return this.liveStateBytes;
  }

  lastWriteOffsets(keys: number): number[] {
    const offsets = new Array<number>(keys).fill(0);
    for (const [key, entry] of this.byKey) if (key < keys) offsets[key] = entry.offset;
    return offsets;
  }

  /** The same as lastWriteOffsets, as a fresh Float64Array copied from state kept current (cheap at any keyspace). */
  lastWriteOffsetArray(keys: number): Float64Array {
    const offsets = new Float64Array(keys);
    offsets.set(this.offsetByKey.length <= keys ? this.offsetByKey : this.offsetByKey.subarray(0, keys));
    return offsets;
  }

  private recordOffset(key: number, offset: number): void {
    if (key >= this.offsetByKey.length) {
      const grown = new Float64Array(Math.max(key + 1, this.offsetByKey.length * 2));
      grown.set(this.offsetByKey);
      this.offsetByKey = grown;
    }
    this.offsetByKey[key] = offset;
  }

  private unlink(entry: Entry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
