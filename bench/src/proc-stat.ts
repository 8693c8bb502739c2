/**
 * A process's CPU and peak memory as the kernel counts them (Linux /proc), for servers the bench
 * did not write (etcd, nats-server, redis-server), which report neither the same way.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's utime and stime: 100 on every Linux this runs on (getconf CLK_TCK). */
const TICKS_PER_SECOND = 100;

/** utime + stime of `pid`, µs; undefined once it has exited. */
export function cpuMicrosOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count the fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after comm (fields 1 and 2).
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** VmHWM of `pid` (its resident set's high-water mark), KiB; undefined once it has exited. */
export function peakRssKbOf(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
