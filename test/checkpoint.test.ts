/**
 * The durable consumer's checkpoint: its copy (tombstones included), its contiguous offset and
 * the epoch they belong to, replaced atomically (a torn file never replaces a good one) and
 * written by the Checkpointer only when it changed and only while it is consistent.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHECKPOINT_FILE,
  CHECKPOINT_INTERVAL_MS,
  Checkpointer,
  decodeCheckpoint,
  encodeCheckpoint,
  loadCheckpoint,
  LocalCopy,
  saveCheckpoint,
  StreamFollower,
  type CheckpointState,
} from '@state-divergence/consumer/internal';
import { createLogger } from '@state-divergence/runtime';

const logger = createLogger('test', { level: 'silent', file: null, mode: null });
const state: CheckpointState = {
  epoch: 2 ** 47 + 3,
  offset: 2 ** 40 + 1,
  lastVersion: 77,
  entries: [
    [0, 5, 50, false],
    [9, 7, 0, true],
    [1999, 2 ** 33, 0xffff_ffff, false],
  ],
};
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'state-divergence-checkpoint-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('checkpoint file', () => {
  test('round trip: epoch, offset, last version and every entry, tombstones included', () => {
    expect(decodeCheckpoint(encodeCheckpoint(state))).toEqual(state);
    expect(encodeCheckpoint(state)).toHaveLength(33 + 3 * 17 + 4);
  });

  test('a torn or altered file is refused with the reason, never half-loaded', () => {
    const bytes = encodeCheckpoint(state);
    for (let cut = 0; cut < bytes.length; cut++) expect(typeof decodeCheckpoint(bytes.subarray(0, cut))).toBe('string');
    const flipped = Buffer.from(bytes);
    flipped.writeUInt8(flipped.readUInt8(40) ^ 1, 40);
    expect(decodeCheckpoint(flipped)).toBe('its checksum does not match');
    expect(decodeCheckpoint(Buffer.from('not a checkpoint at all, but long enough to have a header'))).toBe(
      'not a checkpoint of this format',
    );
  });

  test('none yet: null; a save replaces the previous checkpoint whole', async () => {
    expect(await loadCheckpoint(dir)).toBeNull();
    await saveCheckpoint(dir, state);
    await saveCheckpoint(dir, { ...state, offset: 9, entries: [] });
    expect(await loadCheckpoint(dir)).toEqual({ ...state, offset: 9, entries: [] });
    expect(readdirSync(dir)).toEqual([CHECKPOINT_FILE]); // the temporary file was renamed, not left behind
  });

  test('a torn temporary file (a crash mid-write) never replaces a good checkpoint', async () => {
    await saveCheckpoint(dir, state);
    const torn = encodeCheckpoint({ ...state, offset: 99 }).subarray(0, 30);
    writeFileSync(join(dir, 'checkpoint.tmp'), torn); // what a SIGKILL between write and rename leaves
    expect(await loadCheckpoint(dir)).toEqual(state);
    // And the next save writes over the leftover temporary file.
    await saveCheckpoint(dir, { ...state, offset: 100 });
    expect(await loadCheckpoint(dir)).toEqual({ ...state, offset: 100 });
  });

  test('a torn checkpoint file itself is reported as unusable, not trusted', async () => {
    writeFileSync(join(dir, CHECKPOINT_FILE), encodeCheckpoint(state).subarray(0, 50));
    expect(await loadCheckpoint(dir)).toEqual(expect.stringContaining('bytes'));
  });
});

describe('Checkpointer', () => {
  const follower = () =>
    new StreamFollower({
      detectGaps: true,
      startOffset: 0,
      awaitingSnapshot: false,
      requestResume: () => {},
      onDigest: () => {},
      resumeReplays: true,
    });
  const change = (key: number, version: number) => ({
    key,
    version,
    value: version * 10,
    deleted: false,
    publishedAt: 0,
    payloadLength: 0,
  });
  const sourceOf = (follow: StreamFollower, epoch: number) => ({
    state: () =>
      follow.resumableOffset === null
        ? null
        : { epoch, offset: follow.resumableOffset, lastVersion: follow.lastVersion, entries: follow.copy.held() },
    stamp: () => `${follow.lastOffset}:${follow.applied}:${follow.syncs.length}`,
  });
  const waitFor = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++)
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS / 4));
    expect(check()).toBe(true);
  };

  test('a reload restores the copy, the offset and the epoch it was written with', async () => {
    const follow = follower();
    follow.begin('latest', 0, true);
    for (let offset = 1; offset <= 5; offset++)
      follow.handle({ type: 'event', offset, change: change(offset % 3, offset) });
    const checkpointer = new Checkpointer(dir, sourceOf(follow, 42), logger);
    await waitFor(() => checkpointer.writes === 1);
    const loaded = await loadCheckpoint(dir);
    if (loaded === null || typeof loaded === 'string') throw new Error(`no checkpoint: ${loaded}`);
    expect(loaded).toMatchObject({ epoch: 42, offset: 5, lastVersion: 5 });
    expect(LocalCopy.fromEntries(loaded.entries).toTriples()).toEqual(follow.copy.toTriples());
    // Unchanged: nothing more is written, however long it waits.
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 3));
    expect(checkpointer.writes).toBe(1);
    // The last one is written at close, at once.
    follow.handle({ type: 'event', offset: 6, change: change(7, 6) });
    await checkpointer.close();
    expect(await loadCheckpoint(dir)).toMatchObject({
      offset: 6,
      entries: expect.arrayContaining([[7, 6, 60, false]]),
    });
  });

  test('nothing is written while a snapshot is half received: its copy and offset do not belong together', async () => {
    const follow = follower();
    follow.begin('snapshot', 3, true);
    follow.handle({ type: 'state', offset: 3, change: change(1, 3) });
    const checkpointer = new Checkpointer(dir, sourceOf(follow, 1), logger);
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 3));
    await checkpointer.close();
    expect(checkpointer.writes).toBe(0);
    expect(await loadCheckpoint(dir)).toBeNull();
  });
});
