import { crc32 } from 'node:zlib';

/**
 * One record as stored, in the log (keyed by offset) and in the compacted table (keyed by key):
 *
 *   crc32 u32 | offset u64 | key u32 | body (the PUBLISH body verbatim)
 *
 * big-endian; the CRC (node:zlib's crc32) covers everything after it. The offset is stored
 * although it is also the log's key, so a record found under the wrong key, or a table entry,
 * says where it belongs; the key, so recovery can find a key's previous write in the log.
 */
export const RECORD_HEADER_BYTES = 4 + 8 + 4;

export interface StoredRecord {
  offset: number;
  key: number;
  /** A view into the value lmdb returned (a fresh buffer per read, not reused). */
  body: Buffer;
}

export function encodeRecord(offset: number, key: number, body: Uint8Array): Buffer {
  const value = Buffer.allocUnsafe(RECORD_HEADER_BYTES + body.length);
  // Two u32 words, as the wire does: exact for every offset a number holds (< 2^53).
  value.writeUInt32BE(Math.floor(offset / 0x1_0000_0000), 4);
  value.writeUInt32BE(offset >>> 0, 8);
  value.writeUInt32BE(key, 12);
  value.set(body, RECORD_HEADER_BYTES);
  value.writeUInt32BE(crc32(value.subarray(4)), 0);
  return value;
}

/** The record, or what is wrong with it (a short phrase for a one-line error). */
export function decodeRecord(value: Buffer): StoredRecord | string {
  if (value.length < RECORD_HEADER_BYTES)
    return `${value.length} bytes, shorter than the ${RECORD_HEADER_BYTES}-byte record header`;
  if (crc32(value.subarray(4)) !== value.readUInt32BE(0)) return `CRC mismatch over its ${value.length} bytes`;
  return {
    offset: value.readUInt32BE(4) * 0x1_0000_0000 + value.readUInt32BE(8),
    key: value.readUInt32BE(12),
    body: value.subarray(RECORD_HEADER_BYTES),
  };
}
