import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

/**
 * A check of lmdb's data file before lmdb maps it. lmdb trusts the file's length: truncated
 * mid-way, it maps the missing pages anyway and the process dies of SIGBUS (or SIGSEGV, or an
 * assertion) on the first page it touches past the end, and a range read can even stop early
 * and silently before that: measured on lmdb 3.5.6 (docs/ARCHITECTURE.md, "The durable log").
 * Node cannot catch a SIGBUS raised by a memory access, so the only way to turn a truncated
 * file into an error is not to open it: its newest meta page says which page the last
 * committed transaction reached, and a file shorter than that lost data.
 *
 * The layout is lmdb's (dependencies/lmdb/libraries/liblmdb/mdb.c, MDB_page_header and
 * MDB_meta in the version lmdb 3.5.6 ships, pinned in package.json): two meta pages at
 * 0 and pageSize (three with overlappingSync, which the log never uses), each a 24-byte page
 * header, then mm_magic u32, mm_version u32, mm_address, mm_mapsize, mm_dbs[2] (48 bytes each;
 * the first one's md_pad is the page size), mm_last_pg u64, mm_txnid u64, in the machine's byte order.
 */
const MAGIC = 0xbeefc0de;
const AT = { magic: 24, pageSize: 48, lastPage: 144, txnId: 152 } as const;
const META_BYTES = 160;

interface Meta {
  pageSize: number;
  lastPage: number;
  txnId: number;
}

function readMeta(fd: number, at: number): Meta | undefined {
  const buf = Buffer.alloc(META_BYTES);
  if (readSync(fd, buf, 0, META_BYTES, at) < META_BYTES) return undefined;
  const le = endianness() === 'LE';
  const u32 = (i: number) => (le ? buf.readUInt32LE(i) : buf.readUInt32BE(i));
  const u64 = (i: number) => Number(le ? buf.readBigUInt64LE(i) : buf.readBigUInt64BE(i));
  if (u32(AT.magic) !== MAGIC) return undefined;
  return { pageSize: u32(AT.pageSize), lastPage: u64(AT.lastPage), txnId: u64(AT.txnId) };
}

/** What is wrong with the data file at `path`, in a phrase, or undefined if its length holds its last transaction. */
export function dataFileProblem(path: string): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    // lmdb would silently start a new, empty database in a zero-length file.
    if (size === 0)
      return (
        'data.mdb is empty (0 bytes): truncated, or a creation that never finished; remove the directory to start ' +
        'a new log'
      );
    const first = readMeta(fd, 0);
    if (first === undefined || first.pageSize < 512 || first.pageSize > 65_536)
      return `data.mdb (${size} bytes) does not start with an lmdb meta page: truncated or not an lmdb file`;
    const second = readMeta(fd, first.pageSize);
    if (second === undefined)
      return `data.mdb is ${size} bytes, shorter than its two ${first.pageSize}-byte meta pages: truncated`;
    // lmdb opens at the meta page with the higher transaction id; so does this check.
    const newest = second.txnId > first.txnId ? second : first;
    const needed = (newest.lastPage + 1) * first.pageSize;
    if (size < needed)
      return (
        `data.mdb is ${size} bytes but its last committed transaction (${newest.txnId}) reaches ${needed}: the ` +
        `file was truncated`
      );
    return undefined;
  } finally {
    closeSync(fd);
  }
}
