import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Who each pid of a run is, from its --log-file as the run writes it: every line carries `proc`
 * (`broker`, `consumer-3`, `pool-1`, `relay-consumer-3`, …), `pid` and, below the orchestrator's
 * own lines, `mode`. Read incrementally (only the bytes appended since the last read), so a
 * sampler can name a process within a second of its first line.
 */
export class LogNames {
  private offset = 0;
  private partial = '';
  private readonly names = new Map<number, Set<string>>();
  private readonly modes = new Map<number, string>();

  constructor(private readonly file: string) {}

  /** Reads what was appended since the last call; a log not created yet is read later. */
  update(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      const read = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += read;
      const lines = (this.partial + buffer.subarray(0, read).toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.take(line);
    } finally {
      closeSync(fd);
    }
  }

  private take(line: string): void {
    if (line.length === 0) return;
    let parsed: { pid?: unknown; proc?: unknown; mode?: unknown };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      return; // not ours to judge: the run's own tests check the log's shape
    }
    // The orchestrator's own lines are skipped: some name a child's pid in a `pid` field of their own
    // (a freeze records whom it froze), which JSON.parse lets win over pino's. The sampler knows its root.
    if (typeof parsed.pid !== 'number' || typeof parsed.proc !== 'string' || parsed.proc === 'orchestrator') return;
    let names = this.names.get(parsed.pid);
    if (names === undefined) this.names.set(parsed.pid, (names = new Set()));
    names.add(parsed.proc);
    if (typeof parsed.mode === 'string' && parsed.proc !== 'orchestrator' && !this.modes.has(parsed.pid))
      this.modes.set(parsed.pid, parsed.mode);
  }

  /**
   * The process's role name as the run calls it, or null if it has not logged yet. A pool logs as
   * itself and as each member (`pool-1`, `consumer-1`, `consumer-2`): it is named by the pool.
   */
  nameOf(pid: number): string | null {
    const names = this.names.get(pid);
    if (names === undefined) return null;
    const pool = [...names].find((name) => name.startsWith('pool-'));
    return pool ?? [...names].join('+');
  }

  /** The mode a child ran in (each mode runs with fresh processes); null for the orchestrator and guardian, which serve
   * every mode. */
  modeOf(pid: number): string | null {
    return this.modes.get(pid) ?? null;
  }
}
