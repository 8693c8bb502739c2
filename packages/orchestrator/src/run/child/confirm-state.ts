import { setTimeout as sleep } from 'node:timers/promises';
import { groupMembers, hasExited, processStat, PROC, requireProc, threadStates } from './proc-stat.js';

/** What a SIGSTOP or SIGCONT is confirmed to have done. */
export type Wanted = 'stopped' | 'running';

/**
 * `confirmed`: every thread of every process of the group is in state T (stopped), or none is
 * (running), as of `decidedAt` (performance.now() after the read that showed it: whoever records
 * it may run ms later). `gone`: the group's leader exited first (a zombie or no /proc entry): it is
 * neither frozen nor running, and its death is the watcher's to report. `timeout`: neither within
 * the bound; `states` is what was seen last, per pid.
 */
export type Confirmation =
  | { outcome: 'confirmed'; waitedMs: number; decidedAt: number }
  | { outcome: 'gone'; waitedMs: number }
  | { outcome: 'timeout'; waitedMs: number; states: Record<number, string[]> };

/**
 * How long a signal may take to show in /proc before the run gives up on it. A stop takes effect
 * when the process next runs: within milliseconds on a quiet machine, tens under load; a thread in
 * an uninterruptible wait (D: a disk write) stops only when the wait ends. Far past all of those.
 */
export const CONFIRM_TIMEOUT_MS = 5_000;
/** Polls start at 1 ms and double up to this: a quick stop is seen at once, a slow one costs a read every 20 ms. */
const MAX_POLL_MS = 20;

const isStopped = (state: string) => state === 'T';

/**
 * Waits (bounded) until the process group `pgid` (its leader's pid) is as wanted after a signal
 * to it. The group's members are listed once (the processes the signal reached); each poll reads
 * the state of their threads. A member other than the leader that exits meanwhile (or a thread
 * of it) counts as stopped and as running alike: it runs nothing. `since` (performance.now()) is
 * when the signal was sent, read before kill(2): `waitedMs` and the bound count from it, so a
 * confirmation's time less its `waitedMs` is never later than the signal took effect (the wait
 * starts after kill returns, which a busy machine delays past the moment the signal acted).
 */
export async function confirmGroup(
  pgid: number,
  wanted: Wanted,
  options: { timeoutMs?: number; root?: string; since?: number } = {},
): Promise<Confirmation> {
  const { timeoutMs = CONFIRM_TIMEOUT_MS, root = PROC } = options;
  requireProc(root);
  const started = options.since ?? performance.now();
  const waited = () => Math.round((performance.now() - started) * 10) / 10;
  // The leader is checked even if the scan missed it (it may have left the group: it is still the role's process).
  const members = [...new Set([pgid, ...groupMembers(pgid, root)])];
  let poll = 1;
  for (;;) {
    if (hasExited(processStat(pgid, root))) return { outcome: 'gone', waitedMs: waited() };
    const states = Object.fromEntries(members.map((pid) => [pid, threadStates(pid, root)]));
    const all = Object.values(states)
      .flat()
      .filter((state) => state !== 'Z' && state !== 'X');
    const done = wanted === 'stopped' ? all.every(isStopped) : !all.some(isStopped);
    if (done) {
      const decidedAt = performance.now();
      return { outcome: 'confirmed', waitedMs: Math.round((decidedAt - started) * 10) / 10, decidedAt };
    }
    if (performance.now() - started >= timeoutMs) return { outcome: 'timeout', waitedMs: waited(), states };
    await sleep(poll);
    poll = Math.min(poll * 2, MAX_POLL_MS);
  }
}

/** One read, no wait: is the process itself (its main thread) stopped right now? The check a slow's every period can
 * afford. */
export function stoppedNow(pid: number, root = PROC): boolean {
  return processStat(pid, root)?.state === 'T';
}
