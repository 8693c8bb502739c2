/**
 * The consumer's StreamFollower, fed hand-built frames: what it applies, what
 * it counts, and when it notices a gap (only when told to look for one).
 */
import { SyncKind, type Change, type Frame } from '@state-divergence/protocol';
import { StreamFollower, type FollowerOptions } from '@state-divergence/consumer/internal';

const change = (key: number, version: number, value = version * 10, deleted = false): Change => ({ key, version, value, deleted, publishedAt: Date.now(), payloadLength: 8 });
const event = (offset: number, key: number): Frame => ({ type: 'event', offset, change: change(key, offset) });

function follower(options: Partial<FollowerOptions> = {}) {
  const resumes: number[] = [];
  const follow = new StreamFollower({ detectGaps: false, startOffset: 0, awaitingSnapshot: false, requestResume: (from) => resumes.push(from), onDigest: () => {}, ...options });
  return { follow, resumes };
}

describe('StreamFollower', () => {
  test('applies events in order: last write wins by version, offsets and counts follow', () => {
    const { follow } = follower();
    for (const frame of [event(1, 0), event(2, 1), event(3, 0)]) expect(follow.handle(frame)).toBeUndefined();
    expect(follow.applied).toBe(3);
    expect(follow.lastOffset).toBe(3);
    expect(follow.copy.toTriples()).toEqual([[0, 3, 30], [1, 2, 20]]);
  });

  test('naive (no gap detection): a gap in offsets goes unnoticed, exactly the seed\'s consumer', () => {
    const { follow, resumes } = follower();
    follow.handle(event(1, 0));
    follow.handle(event(7, 1)); // 2..6 were dropped at the broker
    expect(follow.lastOffset).toBe(7);
    expect(resumes).toEqual([]);
    expect(follow.resumes).toBe(0);
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
    expect(follow.syncs).toEqual([{ kind: 'delta', at: expect.any(Number), frames: 2, keys: 1, bytes: expect.any(Number), offset: 6 }]);
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
    expect(follow.handle({ type: 'welcome', headOffset: 0, epoch: 1 })).toBe('unexpected welcome frame from the broker');
    expect(follow.handle({ type: 'progress', headOffset: 5 })).toBeUndefined();
    let digest: unknown;
    const withDigest = new StreamFollower({ detectGaps: false, startOffset: 0, awaitingSnapshot: false, requestResume: () => {}, onDigest: (frame) => (digest = frame) });
    withDigest.handle({ type: 'digest', offset: 0, digest: '00', liveKeys: 0 });
    expect(digest).toEqual({ type: 'digest', offset: 0, digest: '00', liveKeys: 0 });
    expect(follow.applied).toBe(0);
  });
});
