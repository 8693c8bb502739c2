import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says about one process, read without spawning anything (`ps` per sample
 * would cost more than the sample). Every reader returns null for a process that is gone: between
 * listing /proc and reading a file the process may exit, and that is not an error.
 */

/** From /proc/PID/stat: the fields the soak needs. `startTicks` (since boot) tells a reused pid from the first. */
export interface ProcStat {
  pid: number;
  /** R, S, D, T (stopped: SIGSTOP), Z (a zombie: exited, not yet reaped), … */
  state: string;
  ppid: number;
  pgid: number;
  startTicks: number;
}

export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); field N is rest[N - 3].
  return { pid, state: rest[0]!, ppid: Number(rest[1]), pgid: Number(rest[2]), startTicks: Number(rest[19]) };
}

/** Resident memory from /proc/PID/status, KiB: the whole (VmRSS) and its anonymous part (heap, stacks) and file-backed
 * part (mapped code, an mmapped lmdb file). */
export interface ProcMemory {
  rssKb: number;
  anonKb: number;
  fileKb: number;
}

export function readMemory(pid: number): ProcMemory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return match === null ? null : Number(match[1]);
  };
  const rssKb = field('VmRSS');
  // A zombie has no memory lines any more.
  if (rssKb === null) return null;
  return { rssKb, anonKb: field('RssAnon') ?? 0, fileKb: field('RssFile') ?? 0 };
}

/** Open file descriptors: the entries of /proc/PID/fd (readable for our own user's processes). */
export function countFds(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** The process's argv, joined by spaces ('' for a zombie or a gone process). */
export function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((arg) => arg.length > 0)
      .join(' ');
  } catch {
    return '';
  }
}

/** Every process on the machine now. */
export function allProcesses(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== null) stats.push(stat);
  }
  return stats;
}

/**
 * The run's processes: the root and its descendants by parent pid, and anything in a process group
 * one of them leads. The orchestrator starts every child in a group of its own (detached), so a
 * grandchild whose parent died, reparented away from the tree, is still found by its group.
 */
export function runTree(rootPid: number, processes: ProcStat[] = allProcesses()): ProcStat[] {
  const members = new Map<number, ProcStat>();
  const root = processes.find((p) => p.pid === rootPid);
  if (root === undefined) return [];
  members.set(root.pid, root);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of processes) {
      if (members.has(p.pid)) continue;
      if (members.has(p.ppid) || members.has(p.pgid)) {
        members.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...members.values()];
}

/** A process's identity across samples: its pid and when it started (a pid can be reused). */
export const identity = (stat: Pick<ProcStat, 'pid' | 'startTicks'>): string => `${stat.pid}@${stat.startTicks}`;

/** Still running code: present and not a zombie. A stopped (T) process is alive: it would run again on SIGCONT. */
export function aliveAs(stat: Pick<ProcStat, 'pid' | 'startTicks'>): ProcStat | null {
  const now = readStat(stat.pid);
  if (now === null || now.startTicks !== stat.startTicks || now.state === 'Z') return null;
  return now;
}
