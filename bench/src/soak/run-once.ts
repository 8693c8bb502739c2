import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { JsonDocument, JsonRun } from '@state-divergence/orchestrator';
import { modeSpec, type Mode } from '@state-divergence/protocol';
import { RunRecorder, type DiskSample, type ProcessSeries } from './recorder.js';
import { reap, survivorsOf, type Survivor } from './survivors.js';

const ORCHESTRATOR = fileURLToPath(new URL('../../../packages/orchestrator/bin/orchestrator.js', import.meta.url));

/** What one orchestrator invocation of the soak gave. */
export interface RunRecord {
  /** The flags it ran with, as a user would type them after `npx orchestrator`. */
  args: string[];
  startedAt: number;
  endedAt: number;
  exitCode: number | null;
  /** The last lines of its stderr when it exited non-zero (else []). */
  stderrTail: string[];
  /** Its stderr's lines that say what a --nemesis drew (the reproducible flags); [] for a written schedule. */
  schedule: string[];
  /**
   * Per mode: the checker's verdict and its unexplained keys (the --json document's), and when its
   * publishing ended on the wall clock (its `publisher-done` event; null if it never said done).
   */
  modes: Array<{ mode: string; verdict: string; unexplained: number; publishingEndedWall: number | null }>;
  /** Why the --json document could not be read, null when it was. */
  documentError: string | null;
  processes: ProcessSeries[];
  disk: DiskSample[];
  survivors: Survivor[];
  /** How long after the orchestrator's exit its last process was gone, ms (the grace it needed). */
  lastGoneMs: number;
}

export interface RunSettings {
  intervalMs: number;
  /** How long after the orchestrator's exit a process of the run may still be alive before it counts as leaked. */
  graceMs: number;
  clock: () => number;
  /** Aborted: the orchestrator is sent SIGINT once and reaps its processes (the soak then checks them as always). */
  signal?: AbortSignal;
}

/** The wall-clock time the run's publisher said it was done: its event on the run clock, moved by the run's origin. */
function publishingEnded(run: JsonRun): number | null {
  const done = run.events.find((event) => event.type === 'publisher-done');
  return done === undefined ? null : run.origin.wallMs + (done.at - run.origin.runMs);
}

/** The lines a nemesis prints on stderr before the run: whatever names the flags it drew. */
const scheduleLines = (stderr: string): string[] => stderr.split('\n').filter((line) => /nemesis/i.test(line));

/**
 * Runs the real orchestrator once (a separate process, as a user runs it) with --json and a
 * log file, samples it and its children while it runs, and after it exits looks for any of its
 * processes still alive, reaping what it finds (the soak must leave nothing behind either).
 */
export async function runOnce(mode: Mode, flags: string[], settings: RunSettings): Promise<RunRecord> {
  const args = ['--mode', mode, ...flags];
  const scratch = mkdtempSync(join(tmpdir(), 'state-divergence-soak-'));
  const logFile = join(scratch, 'run.ndjson');
  // A run with a log keeps it in a dir the sampler can weigh (the orchestrator wants it absent or empty).
  const dataDir = modeSpec(mode).keepsLog ? join(scratch, 'data') : null;
  const fullArgs = [
    ...args,
    '--json',
    '--no-tui',
    '--log-file',
    logFile,
    ...(dataDir === null ? [] : ['--data-dir', dataDir]),
  ];
  const startedAt = settings.clock();
  // Its own process group: a Ctrl-C at the terminal reaches the soak alone, which passes it on once
  // (the orchestrator takes a second signal as "kill everything now").
  const child = execa('node', [ORCHESTRATOR, ...fullArgs], {
    reject: false,
    env: { NODE_OPTIONS: '' },
    stdin: 'ignore',
    detached: true,
  });
  if (child.pid === undefined) {
    const failed = await child;
    throw new Error(`the orchestrator could not be started: ${failed.message}`);
  }
  const interrupt = () => child.kill('SIGINT');
  if (settings.signal?.aborted === true) interrupt();
  settings.signal?.addEventListener('abort', interrupt, { once: true });
  const recorder = new RunRecorder(child.pid, {
    logFile,
    dataDir,
    intervalMs: settings.intervalMs,
    clock: settings.clock,
  });
  recorder.start();
  const result = await child;
  settings.signal?.removeEventListener('abort', interrupt);
  recorder.stop();
  const endedAt = settings.clock();
  const nameOf = (pid: number) => [...recorder.processes.values()].find((p) => p.pid === pid)?.name ?? 'unknown';
  const { survivors, lastGoneMs } = await survivorsOf(recorder.seen.values(), nameOf, settings.graceMs);
  reap(survivors);
  const stderr = String(result.stderr ?? '');
  let modes: RunRecord['modes'] = [];
  let documentError: string | null = null;
  try {
    const document = JSON.parse(String(result.stdout)) as JsonDocument;
    modes = document.runs.map((run) => ({
      mode: run.mode,
      verdict: run.valid,
      unexplained: run.unexplained,
      publishingEndedWall: publishingEnded(run),
    }));
  } catch (error) {
    documentError = `its --json document could not be parsed: ${(error as Error).message}`;
  }
  rmSync(scratch, { recursive: true, force: true });
  return {
    args,
    startedAt,
    endedAt,
    exitCode: result.exitCode ?? null,
    stderrTail: result.exitCode === 0 ? [] : stderr.trimEnd().split('\n').slice(-5),
    schedule: scheduleLines(stderr),
    modes,
    documentError,
    processes: [...recorder.processes.values()],
    disk: recorder.disk,
    survivors,
    lastGoneMs,
  };
}
