import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { HeldEntry } from './local-copy.js';

/**
 * What a durable consumer persists: its local copy (tombstones included, so an older write
 * cannot bring a deleted key back) and the offset it is contiguous to, in the broker epoch
 * those offsets belong to, written together so one never runs ahead of the other.
 */
export interface CheckpointState {
  epoch: number;
  offset: number;
  /** The highest version applied up to `offset`. */
  lastVersion: number;
  entries: HeldEntry[];
}

export const CHECKPOINT_FILE = 'checkpoint';
const TEMP_FILE = 'checkpoint.tmp';
const MAGIC = 0x5344_4350; // "SDCP"
const FORMAT = 1;
/** magic u32, format u8, epoch, offset, lastVersion (f64 each: exact below 2^53), entry count u32. */
const HEADER_BYTES = 4 + 1 + 8 * 3 + 4;
/** key u32, version f64, value u32, deleted u8. */
const ENTRY_BYTES = 4 + 8 + 4 + 1;
const CRC_BYTES = 4;

export function encodeCheckpoint(state: CheckpointState): Buffer {
  const buf = Buffer.alloc(HEADER_BYTES + state.entries.length * ENTRY_BYTES + CRC_BYTES);
  let at = buf.writeUInt32BE(MAGIC, 0);
  at = buf.writeUInt8(FORMAT, at);
  at = buf.writeDoubleBE(state.epoch, at);
  at = buf.writeDoubleBE(state.offset, at);
  at = buf.writeDoubleBE(state.lastVersion, at);
  at = buf.writeUInt32BE(state.entries.length, at);
  for (const [key, version, value, deleted] of state.entries) {
    at = buf.writeUInt32BE(key, at);
    at = buf.writeDoubleBE(version, at);
    at = buf.writeUInt32BE(value, at);
    at = buf.writeUInt8(deleted ? 1 : 0, at);
  }
  buf.writeUInt32BE(crc32(buf.subarray(0, at)), at);
  return buf;
}

/** The state, or why the bytes are not a whole checkpoint (a torn or foreign file is never trusted). */
export function decodeCheckpoint(buf: Buffer): CheckpointState | string {
  if (buf.length < HEADER_BYTES + CRC_BYTES) return `${buf.length} bytes, shorter than a checkpoint's header`;
  if (buf.readUInt32BE(0) !== MAGIC || buf.readUInt8(4) !== FORMAT) return 'not a checkpoint of this format';
  const count = buf.readUInt32BE(HEADER_BYTES - 4);
  const length = HEADER_BYTES + count * ENTRY_BYTES + CRC_BYTES;
  if (buf.length !== length) return `${buf.length} bytes where its ${count} entries need ${length}`;
  if (crc32(buf.subarray(0, length - CRC_BYTES)) !== buf.readUInt32BE(length - CRC_BYTES))
    return 'its checksum does not match';
  const entries: HeldEntry[] = [];
  for (let at = HEADER_BYTES; at < length - CRC_BYTES; at += ENTRY_BYTES) {
    entries.push([
      buf.readUInt32BE(at),
      buf.readDoubleBE(at + 4),
      buf.readUInt32BE(at + 12),
      buf.readUInt8(at + 16) === 1,
    ]);
  }
  return { epoch: buf.readDoubleBE(5), offset: buf.readDoubleBE(13), lastVersion: buf.readDoubleBE(21), entries };
}

/** The checkpoint in `dir`: null when there is none; a string when there is one that cannot be used. */
export async function loadCheckpoint(dir: string): Promise<CheckpointState | string | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, CHECKPOINT_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return decodeCheckpoint(bytes);
}

/**
 * Atomic replacement: the bytes go to a temporary file, which is fsynced before it is renamed
 * over the checkpoint, so a crash at any point leaves either the old checkpoint or the new
 * one, whole (rename is atomic; without the fsync the rename could reach the disk before the
 * data). The directory is not fsynced: a power cut may then keep the previous checkpoint,
 * which is still whole and consistent, only older.
 */
export async function saveCheckpoint(dir: string, state: CheckpointState): Promise<void> {
  const temp = join(dir, TEMP_FILE);
  const file = await open(temp, 'w');
  try {
    await file.writeFile(encodeCheckpoint(state));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, join(dir, CHECKPOINT_FILE));
}

/** saveCheckpoint, synchronously: for the last one, written while the process is closing. */
export function saveCheckpointSync(dir: string, state: CheckpointState): void {
  const temp = join(dir, TEMP_FILE);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, encodeCheckpoint(state));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(dir, CHECKPOINT_FILE));
}
