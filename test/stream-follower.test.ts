/**
 * The consumer's StreamFollower, fed hand-built frames: what it applies, what
 * it counts, and when it notices a gap (only when told to look for one).
 */
import { SyncKind, type Change, type Frame } from '@state-divergence/protocol';
import { LocalCopy, StreamFollower, type FollowerOptions } from '@state-divergence/consumer/internal';

const change = (key: number, version: number, value = version * 10, deleted = false): Change => ({
  key,
  version,
  value,
  deleted,
  publishedAt: Date.now(),
  payloadLength: 8,
});
const event = (offset: number, key: number): Frame => ({ type: 'event', offset, change: change(key, offset) });

function follower(options: Partial<FollowerOptions> = {}) {
  const resumes: number[] = [];
  const follow = new StreamFollower({
    detectGaps: false,
    startOffset: 0,
    awaitingSnapshot: false,
    requestResume: (from) => resumes.push(from),
    onDigest: () => {},
    ...options,
  });
  return { follow, resumes };
}

describe('StreamFollower', () => {
  test('applies events in order: last write wins by version, offsets and counts follow', () => {
    const { follow } = follower();
    for (const frame of [event(1, 0), event(2, 1), event(3, 0)]) expect(follow.handle(frame)).toBeUndefined();
    expect(follow.applied).toBe(3);
    expect(follow.lastOffset).toBe(3);
    expect(follow.copy.toTriples()).toEqual([
      [0, 3, 30],
      [1, 2, 20],
    ]);
  });

  test("naive (no gap detection): a gap in offsets goes unnoticed, exactly the seed's consumer", () => {
    const { follow, resumes } = follower();
    follow.handle(event(1, 0));
    follow.handle(event(7, 1)); // 2..6 were dropped at the broker
    expect(follow.lastOffset).toBe(7);
    expect(resumes).toEqual([]);
    expect(follow.resumes).toBe(0);
  });

  test('naive: lastVersion (how far the subscription reached contiguously) stops at the first hole, and a new subscription starts its own prefix', () => {
    const { follow } = follower();
    follow.handle(event(1, 0));
    follow.handle(event(2, 1));
    follow.handle(event(7, 1)); // 3..6 dropped: what it reached contiguously ends at 2
    follow.handle(event(8, 2));
    expect(follow.lastOffset).toBe(8);
    expect(follow.lastVersion).toBe(2);
    follow.begin('latest', 20, false); // subscribed again at the head: a new stream, a new prefix
    follow.handle(event(21, 0));
    expect(follow.lastVersion).toBe(21);
  });

  test('careful (gap detection): a gap asks for a resume from the last contiguous offset, once, and waits for the delta', () => {
    const { follow, resumes } = follower({ detectGaps: true });
    follow.handle(event(1, 0));
    follow.handle(event(5, 1));
    follow.handle(event(6, 2)); // still syncing: no second resume
    expect(resumes).toEqual([1]);
    expect(follow.resumes).toBe(1);
    expect(follow.syncing).toBe(true);
    expect(follow.lastOffset).toBe(1);
    // The delta: STATE frames, then SYNC_END at the head.
    follow.handle({ type: 'state', offset: 4, change: change(3, 4) });
    follow.handle({ type: 'state', offset: 3, change: change(3, 3) }); // older: ignored by the copy, counted as a frame
    follow.handle({ type: 'syncEnd', kind: SyncKind.delta, offset: 6 });
    expect(follow.syncing).toBe(false);
    expect(follow.lastOffset).toBe(6);
    expect(follow.syncs).toEqual([
      { kind: 'delta', at: expect.any(Number), frames: 2, keys: 1, bytes: expect.any(Number), offset: 6 },
    ]);
    follow.handle(event(7, 0));
    expect(follow.lastOffset).toBe(7);
  });

  test('a LAG signal counts and puts it in sync until the SYNC_END', () => {
    const { follow } = follower({ detectGaps: true });
    follow.handle({ type: 'lag', from: 3, to: 9 });
    expect(follow.lags).toBe(1);
    expect(follow.syncing).toBe(true);
    follow.handle({ type: 'syncEnd', kind: SyncKind.delta, offset: 9 });
    expect(follow.syncing).toBe(false);
  });

  test('a snapshot subscribe starts in sync and records the snapshot', () => {
    const { follow } = follower({ detectGaps: true, awaitingSnapshot: true });
    expect(follow.syncing).toBe(true);
    follow.handle({ type: 'state', offset: 2, change: change(0, 2) });
    follow.handle({ type: 'syncEnd', kind: SyncKind.snapshot, offset: 2 });
    expect(follow.syncs[0]).toMatchObject({ kind: 'snapshot', frames: 1, keys: 1, offset: 2 });
    expect(follow.copy.toTriples()).toEqual([[0, 2, 20]]);
  });

  test('a frame a subscriber must never receive is named, not applied; heartbeats and digests are not errors', () => {
    const { follow } = follower();
    expect(follow.handle({ type: 'welcome', headOffset: 0, epoch: 1 })).toBe(
      'unexpected welcome frame from the broker',
    );
    expect(follow.handle({ type: 'progress', headOffset: 5 })).toBeUndefined();
    let digest: unknown;
    const withDigest = new StreamFollower({
      detectGaps: false,
      startOffset: 0,
      awaitingSnapshot: false,
      requestResume: () => {},
      onDigest: (frame) => (digest = frame),
    });
    withDigest.handle({ type: 'digest', offset: 0, digest: '00', liveKeys: 0 });
    expect(digest).toEqual({ type: 'digest', offset: 0, digest: '00', liveKeys: 0 });
    expect(follow.applied).toBe(0);
  });
});

describe('StreamFollower across subscriptions', () => {
  const state = (key: number, version: number): Frame => ({
    type: 'state',
    offset: version,
    change: change(key, version),
  });
  const snapshotEnd = (offset: number): Frame => ({ type: 'syncEnd', kind: SyncKind.snapshot, offset });

  test('a snapshot replaces the copy: the live keys it lacks are removed and recorded with the version they had', () => {
    const { follow } = follower({ detectGaps: true });
    for (const frame of [event(1, 0), event(2, 1), event(3, 2)]) follow.handle(frame);
    // key 3 deleted: a tombstone, not a live key
    follow.handle({ type: 'event', offset: 4, change: change(3, 4, 0, true) });
    // A broker that lost its memory: a new epoch whose table holds key 1 (newer) and key 5 only.
    expect(follow.begin('snapshot', 2, true)).toBeUndefined();
    expect(follow.syncing).toBe(true);
    expect(follow.resumableOffset).toBeNull(); // the copy and the offset do not belong together until SYNC_END
    follow.handle(state(1, 9));
    follow.handle(state(5, 8));
    expect(follow.copy.toTriples()).toEqual([
      [0, 1, 10],
      [1, 2, 20],
      [2, 3, 30],
    ]); // the old copy serves until SYNC_END
    follow.handle(snapshotEnd(2));
    expect(follow.copy.toTriples().sort((a, b) => a[0] - b[0])).toEqual([
      [1, 9, 90],
      [5, 8, 80],
    ]);
    expect(follow.removedBySnapshot).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(follow.lastOffset).toBe(2);
    expect(follow.lastVersion).toBe(9);
    expect(follow.syncing).toBe(false);
  });

  test('a snapshot that holds an older version than the copy still wins: it is the truth', () => {
    const { follow } = follower({ detectGaps: true });
    follow.handle(event(1, 0)); // key 0 at version 1
    follow.handle(event(2, 0)); // key 0 at version 2
    follow.begin('snapshot', 1, false);
    follow.handle(state(0, 1));
    follow.handle(snapshotEnd(2));
    expect(follow.copy.toTriples()).toEqual([[0, 1, 10]]);
    expect(follow.removedBySnapshot).toEqual([]);
  });

  test('a new epoch starts the offset bookkeeping again at its head; the same epoch at latest records what it skipped', () => {
    const { follow } = follower({ detectGaps: true });
    for (const frame of [event(1, 0), event(2, 1), event(3, 2)]) follow.handle(frame);
    expect(follow.begin('latest', 7, false)).toEqual([4, 7]);
    expect(follow.lastOffset).toBe(7);
    // The broker restarted without its memory: offsets begin again, far below 7.
    expect(follow.begin('latest', 2, true)).toBeUndefined();
    expect(follow.lastOffset).toBe(2);
    follow.handle(event(3, 4));
    expect(follow.lastOffset).toBe(3);
    expect(
      follow.copy
        .toTriples()
        .map(([key]) => key)
        .sort(),
    ).toEqual([0, 1, 2, 4]); // latest keeps the copy
  });

  test('a replay continues from the last offset, and a durable RESUME closes its gap with the next contiguous event (no SYNC_END)', () => {
    const { follow, resumes } = follower({ detectGaps: true, resumeReplays: true });
    for (const frame of [event(1, 0), event(2, 1)]) follow.handle(frame);
    expect(follow.begin('replay', 5, false)).toBeUndefined();
    expect(follow.lastOffset).toBe(2);
    follow.handle(event(3, 2));
    follow.handle(event(6, 3)); // 4 and 5 missing: a gap
    expect(resumes).toEqual([3]);
    follow.handle(event(7, 3)); // in flight before the RESUME: applied, not contiguous
    expect(follow.lastOffset).toBe(3);
    for (const offset of [4, 5, 6, 7]) follow.handle(event(offset, 4));
    expect(follow.syncing).toBe(false);
    expect(follow.lastOffset).toBe(7);
    expect(follow.lastVersion).toBe(7);
    follow.handle(event(9, 5));
    expect(resumes).toEqual([3, 7]); // a later gap is asked for again
  });

  test('a copy restored from a checkpoint is followed from its offset', () => {
    const copy = LocalCopy.fromEntries([
      [0, 4, 40, false],
      [1, 3, 0, true],
    ]);
    const { follow } = follower({ detectGaps: true, resumeReplays: true, startOffset: 4, copy });
    follow.begin('replay', 6, false);
    follow.handle({ type: 'event', offset: 5, change: change(1, 2) }); // older than the tombstone: stays deleted
    follow.handle(event(6, 2));
    expect(follow.copy.toTriples()).toEqual([
      [0, 4, 40],
      [2, 6, 60],
    ]);
    expect(follow.lastOffset).toBe(6);
  });
});
