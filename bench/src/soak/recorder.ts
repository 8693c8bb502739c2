import { lstatSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LogNames } from './log-names.js';
import { allProcesses, countFds, identity, readCommand, readMemory, runTree, type ProcStat } from './proc.js';

/** One sample of one process: `t` in seconds since the soak started (every run's samples share that clock). */
export interface ProcessSample {
  t: number;
  /** The wall clock (Date.now) at the sample: a run's document places publishing on it. */
  wall: number;
  rssKb: number;
  anonKb: number;
  fileKb: number;
  fds: number;
}

/** Everything sampled of one process (one pid, one start: a restarted broker is a second series). */
export interface ProcessSeries {
  id: string;
  pid: number;
  startTicks: number;
  /** As the run names it (`orchestrator`, `guardian`, `broker`, `consumer-3`, `pool-1`, `relay-consumer-3`), else its
   * package, else its command. */
  name: string;
  /** The mode it served; null for the orchestrator and the guardian (every mode of the invocation). */
  mode: string | null;
  samples: ProcessSample[];
}

/** The durable data dir at one sample: the broker's log directories and everything, allocated bytes (as `du`). */
export interface DiskSample {
  t: number;
  wall: number;
  brokerLogBytes: number;
  dataDirBytes: number;
}

/** Allocated bytes of a file tree (blocks × 512, as `du`: an lmdb file's unused tail costs nothing); 0 if it is not
 * there (yet). */
export function treeBytes(path: string): number {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.blocks * 512;
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return 0;
  }
  return entries.reduce((sum, entry) => sum + treeBytes(join(path, entry)), 0);
}

/** The broker's log of every mode under a run's --data-dir (`DIR/<mode>/broker`). */
function brokerLogBytes(dataDir: string): number {
  let modes: string[];
  try {
    modes = readdirSync(dataDir);
  } catch {
    return 0;
  }
  return modes.reduce((sum, mode) => sum + treeBytes(join(dataDir, mode, 'broker')), 0);
}

/**
 * A process not yet in the log is named by the package whose bundle it runs
 * (`packages/broker/dist/bundle/main.js`), else by its program (`node`, `sleep`).
 */
function nameFromCommand(command: string, isRoot: boolean): string {
  if (isRoot) return 'orchestrator';
  const bundle = /packages\/([\w-]+)\/dist\/bundle\//.exec(command);
  return bundle?.[1] ?? (basename(command.split(' ')[0] ?? '') || 'unknown');
}

/**
 * Samples one run while it runs: every second, the orchestrator and every process of its tree
 * (proc.ts: by parent and by process group), each one's RSS and open descriptors, and the data
 * dir's bytes. Keeps every process it ever saw, so the run's end can be checked for survivors.
 */
export class RunRecorder {
  readonly processes = new Map<string, ProcessSeries>();
  /** Every process of the run ever seen, as first seen: the survivors are looked for among these. */
  readonly seen = new Map<string, ProcStat>();
  readonly disk: DiskSample[] = [];
  private readonly names: LogNames;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rootPid: number,
    private readonly options: { logFile: string; dataDir: string | null; intervalMs: number; clock: () => number },
  ) {
    this.names = new LogNames(options.logFile);
  }

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.options.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.names.update();
    // Names learnt late (a process that logged after its last sample) still name its series.
    for (const series of this.processes.values()) this.rename(series);
  }

  /** One round: synchronous reads of /proc, a few ms for a run's dozen processes. */
  sample(): void {
    const t = this.options.clock();
    const wall = Date.now();
    this.names.update();
    const tree = runTree(this.rootPid, allProcesses());
    for (const stat of tree) {
      if (stat.state === 'Z') continue;
      const id = identity(stat);
      if (!this.seen.has(id)) this.seen.set(id, stat);
      const memory = readMemory(stat.pid);
      const fds = countFds(stat.pid);
      if (memory === null || fds === null) continue; // exited between the listing and the read
      let series = this.processes.get(id);
      if (series === undefined) {
        series = {
          id,
          pid: stat.pid,
          startTicks: stat.startTicks,
          name: nameFromCommand(readCommand(stat.pid), stat.pid === this.rootPid),
          mode: null,
          samples: [],
        };
        this.processes.set(id, series);
      }
      this.rename(series);
      series.samples.push({ t, wall, ...memory, fds });
    }
    if (this.options.dataDir !== null)
      this.disk.push({
        t,
        wall,
        brokerLogBytes: brokerLogBytes(this.options.dataDir),
        dataDirBytes: treeBytes(this.options.dataDir),
      });
  }

  private rename(series: ProcessSeries): void {
    series.name = this.names.nameOf(series.pid) ?? series.name;
    series.mode = this.names.modeOf(series.pid);
  }
}
