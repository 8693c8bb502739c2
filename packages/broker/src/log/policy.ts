import { FSYNC_POLICIES, type FsyncPolicy } from '@state-divergence/protocol';

/**
 * The durable log's side of the fsync policies (protocol's modes.ts defines them and says what
 * each promises): how each maps onto lmdb. SIGKILL of the process loses nothing committed under
 * any of them (the kernel keeps the written pages); they differ on a power cut or kernel crash.
 *
 *   on-commit  every commit is fdatasync'd before its appends resolve (one fdatasync per commit)
 *   periodic   commits resolve once written; the data file is fdatasync'd every PERIODIC_FSYNC_MS
 *   none       commits resolve once written; the kernel writes back when it likes
 */
export const isFsyncPolicy = (value: unknown): value is FsyncPolicy =>
  (FSYNC_POLICIES as readonly unknown[]).includes(value);

/**
 * The lmdb environment flags of a policy. on-commit turns lmdb's default overlappingSync off:
 * with it a commit's promise means visible, not durable, the fdatasync happens later, and
 * which transaction survives a crash is decided by comparing boot ids. Without it, lmdb's
 * classic commit fdatasyncs the data file inside the commit (counted under strace: exactly one
 * fdatasync per write transaction), so the promise resolving means durable. The other two use
 * MDB_NOSYNC (no fdatasync at commit; periodic adds env.sync() on a timer).
 */
export function envSyncOptions(policy: FsyncPolicy): { noSync: boolean; overlappingSync: false } {
  return { noSync: policy !== 'on-commit', overlappingSync: false };
}
