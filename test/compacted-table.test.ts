/**
 * The broker's CompactedTable, fed PUBLISH bodies built here: what it keeps per
 * key, what a delta or a snapshot from it holds (decoded back into frames), and
 * the bytes and digest it keeps current on every change.
 */
import fc from 'fast-check';
import {
  encodeEventFromPublishBody,
  encodePublish,
  FRAME_HEADER_LENGTH,
  FrameDecoder,
  FrameType,
  StateDigest,
  type Change,
  type Frame,
} from '@state-divergence/protocol';
import { CompactedTable } from '@state-divergence/broker/internal';

const change = (key: number, version: number, deleted = false, payloadLength = 8): Change => ({
  key,
  version,
  value: deleted ? 0 : version * 10,
  deleted,
  publishedAt: 1_700_000_000_000 + version,
  payloadLength,
});
/** The PUBLISH body the broker's decoder hands the table: the frame without its 5-byte header. */
const publishBody = (c: Change): Uint8Array => encodePublish(c).subarray(FRAME_HEADER_LENGTH);
/** A STATE frame with 8 bytes of padding: header 5 + offset 8 + change 25 + padding 8. */
const STATE_BYTES_8 = 46;

/** Writes in order at offsets 1, 2, 3, ...; the version is the offset, as when one publisher feeds the topic. */
function tableOf(writes: Array<[key: number, deleted?: boolean]>): CompactedTable {
  const table = new CompactedTable();
  writes.forEach(([key, deleted = false], i) =>
    table.apply(i + 1, change(key, i + 1, deleted), publishBody(change(key, i + 1, deleted))),
  );
  return table;
}

function decode(frames: Buffer[]): Frame[] {
  const decoder = new FrameDecoder();
  for (const frame of frames) decoder.push(Buffer.from(frame));
  const out: Frame[] = [];
  for (let frame = decoder.next(); frame !== null; frame = decoder.next()) out.push(frame);
  return out;
}

/** Each STATE frame as [offset, key, version, deleted]; anything else fails the test. */
function states(frames: Buffer[]): Array<[number, number, number, boolean]> {
  return decode(frames).map((frame) => {
    if (frame.type !== 'state') throw new Error(`expected a STATE frame, got ${frame.type}`);
    return [frame.offset, frame.change.key, frame.change.version, frame.change.deleted];
  });
}

describe('CompactedTable', () => {
  test('an empty table sends nothing, costs nothing, has the empty digest and offset 0 for every key', () => {
    const table = new CompactedTable();
    expect(table.stateFramesSince(0)).toEqual([]);
    expect(table.stateFramesSince(0, true)).toEqual([]);
    expect(table.fullSnapshotBytes).toBe(0);
    expect(table.digest.size).toBe(0);
    expect(table.digest.toString()).toBe('0000000000000000');
    expect(table.lastWriteOffsets(3)).toEqual([0, 0, 0]);
  });

  test('keeps the last write per key with its offset, and forwards its PUBLISH body verbatim in a STATE frame', () => {
    const table = new CompactedTable();
    const first = change(4, 10);
    const last = change(4, 12, false, 3);
    table.apply(1, first, publishBody(first));
    table.apply(2, change(5, 11), publishBody(change(5, 11)));
    table.apply(3, last, publishBody(last));
    const frames = table.stateFramesSince(2);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toEqual(encodeEventFromPublishBody(3, publishBody(last), FrameType.state));
    expect(decode(frames)).toEqual([{ type: 'state', offset: 3, change: last }]);
  });

  test('a delete leaves a tombstone: in a delta, but not in a live-only snapshot', () => {
    const table = tableOf([[0], [1], [0, true]]);
    expect(states(table.stateFramesSince(0))).toEqual([
      [2, 1, 2, false],
      [3, 0, 3, true],
    ]);
    expect(states(table.stateFramesSince(0, true))).toEqual([[2, 1, 2, false]]);
    expect(table.lastWriteOffsets(2)).toEqual([3, 2]);
  });

  test('entries are ordered by last-write offset: rewriting a key moves it to the newest end', () => {
    const table = tableOf([[0], [1], [2], [0], [1]]);
    expect(states(table.stateFramesSince(0))).toEqual([
      [3, 2, 3, false],
      [4, 0, 4, false],
      [5, 1, 5, false],
    ]);
  });

  test('rewriting the oldest, the newest and the only entry keeps the list whole', () => {
    const only = tableOf([[7], [7], [7]]);
    expect(states(only.stateFramesSince(0))).toEqual([[3, 7, 3, false]]);
    const table = tableOf([[0], [1], [2], [2], [0], [0]]);
    expect(states(table.stateFramesSince(0))).toEqual([
      [2, 1, 2, false],
      [4, 2, 4, false],
      [6, 0, 6, false],
    ]);
  });

  test('a delta from N holds exactly the keys last written after N, each once, in offset order', () => {
    const table = tableOf([[0], [1], [2], [1], [3, true], [0], [4]]);
    // Last writes: key 2 at 3, key 1 at 4, key 3 (tombstone) at 5, key 0 at 6, key 4 at 7.
    expect(states(table.stateFramesSince(0))).toEqual([
      [3, 2, 3, false],
      [4, 1, 4, false],
      [5, 3, 5, true],
      [6, 0, 6, false],
      [7, 4, 7, false],
    ]);
    expect(states(table.stateFramesSince(2))).toEqual([
      [3, 2, 3, false],
      [4, 1, 4, false],
      [5, 3, 5, true],
      [6, 0, 6, false],
      [7, 4, 7, false],
    ]);
    expect(states(table.stateFramesSince(3))).toEqual([
      [4, 1, 4, false],
      [5, 3, 5, true],
      [6, 0, 6, false],
      [7, 4, 7, false],
    ]);
    expect(states(table.stateFramesSince(5))).toEqual([
      [6, 0, 6, false],
      [7, 4, 7, false],
    ]);
    expect(states(table.stateFramesSince(6))).toEqual([[7, 4, 7, false]]);
  });

  test('a delta from the head, or beyond it, is empty', () => {
    const table = tableOf([[0], [1], [0]]);
    expect(table.stateFramesSince(3)).toEqual([]);
    expect(table.stateFramesSince(3, true)).toEqual([]);
    expect(table.stateFramesSince(99)).toEqual([]);
  });

  test('repeated writes of one key leave one entry: one frame in any delta that reaches its last write, none after', () => {
    const table = tableOf([[9], [9], [9], [9]]);
    for (const from of [0, 1, 2, 3]) expect(states(table.stateFramesSince(from))).toEqual([[4, 9, 4, false]]);
    expect(table.stateFramesSince(4)).toEqual([]);
    expect(table.digest.size).toBe(1);
    expect(table.fullSnapshotBytes).toBe(STATE_BYTES_8);
  });

  test('a full snapshot is every live key once, oldest last write first, tombstones left out', () => {
    const table = tableOf([[0], [1], [2], [1, true], [3], [0]]);
    expect(states(table.stateFramesSince(0, true))).toEqual([
      [3, 2, 3, false],
      [5, 3, 5, false],
      [6, 0, 6, false],
    ]);
  });

  test('fullSnapshotBytes is the byte length of a full snapshot, kept through updates, deletes and re-creations', () => {
    const table = new CompactedTable();
    const snapshotBytes = () => table.stateFramesSince(0, true).reduce((sum, frame) => sum + frame.length, 0);
    const apply = (offset: number, c: Change) => table.apply(offset, c, publishBody(c));
    apply(1, change(0, 1, false, 8));
    expect(table.fullSnapshotBytes).toBe(46);
    apply(2, change(1, 2, false, 100));
    expect(table.fullSnapshotBytes).toBe(46 + 138);
    apply(3, change(0, 3, false, 20)); // an update replaces the old body's bytes
    expect(table.fullSnapshotBytes).toBe(58 + 138);
    apply(4, change(1, 4, true, 0)); // a delete removes the key's bytes; its tombstone costs nothing
    expect(table.fullSnapshotBytes).toBe(58);
    apply(5, change(1, 5, true, 0)); // deleting a tombstone again changes nothing
    expect(table.fullSnapshotBytes).toBe(58);
    apply(6, change(2, 6, true, 0)); // a delete of a key never written leaves a tombstone, no bytes
    expect(table.fullSnapshotBytes).toBe(58);
    apply(7, change(1, 7, false, 0)); // re-created
    expect(table.fullSnapshotBytes).toBe(58 + 38);
    expect(table.fullSnapshotBytes).toBe(snapshotBytes());
  });

  test('the digest covers exactly the live (key, version) pairs, through updates and deletes', () => {
    const table = tableOf([[0], [1], [2], [1], [2, true], [3, true], [2]]);
    const expected = new StateDigest();
    expected.add(0, 1);
    expected.add(1, 4);
    expected.add(2, 7);
    expect(table.digest.size).toBe(3);
    expect(table.digest.toString()).toBe(expected.toString());
  });

  test("lastWriteOffsets: each key's last-write offset (tombstones too), 0 if never written, keys beyond the range ignored", () => {
    const table = tableOf([[2], [0], [5], [2, true]]);
    expect(table.lastWriteOffsets(4)).toEqual([2, 0, 4, 0]);
    expect(table.lastWriteOffsets(6)).toEqual([2, 0, 4, 0, 0, 3]);
    expect(table.lastWriteOffsets(0)).toEqual([]);
  });

  test('for any history, a delta from any N equals the model: last write per key, after N, in offset order', () => {
    const write = fc.tuple(fc.integer({ min: 0, max: 7 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(write, { maxLength: 60 }), (writes) => {
        const table = tableOf(writes);
        const last = new Map<number, [number, boolean]>();
        writes.forEach(([key, deleted], i) => last.set(key, [i + 1, deleted]));
        const model = [...last]
          .map(([key, [offset, deleted]]): [number, number, number, boolean] => [offset, key, offset, deleted])
          .sort((a, b) => a[0] - b[0]);
        for (let from = 0; from <= writes.length; from++) {
          expect(states(table.stateFramesSince(from))).toEqual(model.filter(([offset]) => offset > from));
          expect(states(table.stateFramesSince(from, true))).toEqual(
            model.filter(([offset, , , deleted]) => offset > from && !deleted),
          );
        }
        const live = model.filter(([, , , deleted]) => !deleted);
        expect(table.fullSnapshotBytes).toBe(live.length * STATE_BYTES_8);
        expect(table.digest.size).toBe(live.length);
      }),
      { numRuns: 200 },
    );
  });
});
