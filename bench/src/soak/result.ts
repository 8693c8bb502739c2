import type { DiskSample } from './recorder.js';
import type { ProcessVerdict, SoakRules } from './rules.js';
import type { SoakDesign, SoakRun } from './schedule.js';
import type { RunRecord } from './run-once.js';
import type { Survivor } from './survivors.js';

/** The durable data dir's allocated bytes over one run: at its first sample, at the end of publishing, the most. */
export interface DiskFigures {
  brokerLogBytes: { start: number; end: number; max: number };
  dataDirBytes: { start: number; end: number; max: number };
}

/** One run of the soak as stored: what ran, what the checker said, every process's figures, what failed. */
export interface SoakRunResult {
  index: number;
  kind: SoakRun['kind'];
  mode: SoakRun['mode'];
  seed: number;
  /** The command that runs it again alone. */
  command: string;
  /** Where its faults came from, in words. */
  faults: string;
  /** What the nemesis said it drew (its stderr line: the same faults as written flags); [] when the soak wrote them in
   * (a long run). */
  schedule: string[];
  wallSeconds: number;
  exitCode: number | null;
  modes: RunRecord['modes'];
  survivors: Survivor[];
  lastGoneMs: number;
  processes: ProcessVerdict[];
  disk: DiskFigures | null;
  /** Each rule it broke, a sentence; [] is a pass. */
  failures: string[];
  /** A long run's judged processes every 30 s: `[t, RSS MiB, fds]` since the process's first sample (absent for short
   * runs). */
  series?: Record<string, Array<[number, number, number]>>;
}

/** bench/soak.json: one soak, as `npm run soak` wrote it. */
export interface SoakResult {
  version: 1;
  measuredAt: string;
  machine: { cpus: number; model: string; node: string };
  design: SoakDesign;
  rules: SoakRules;
  wallSeconds: number;
  passed: boolean;
  /** Interrupted (SIGINT/SIGTERM) before its time was up. */
  interrupted: boolean;
  /** Every failure, `run N: …`; the first is the one-line reason the soak exits 1 with. */
  failures: string[];
  runs: SoakRunResult[];
}

export function diskFigures(disk: DiskSample[], until: number | null): DiskFigures | null {
  if (disk.length === 0) return null;
  const judged = until === null ? disk : disk.filter((d, i) => i === 0 || d.wall <= until);
  const figures = (value: (d: DiskSample) => number) => ({
    start: value(judged[0]!),
    end: value(judged[judged.length - 1]!),
    max: Math.max(...disk.map(value)),
  });
  return { brokerLogBytes: figures((d) => d.brokerLogBytes), dataDirBytes: figures((d) => d.dataDirBytes) };
}
