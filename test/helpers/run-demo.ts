import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { JsonDocument, JsonRun } from '@state-divergence/orchestrator';

/**
 * Half-second phases around a 2 s stall of consumer-3 ([0.5, 2.5) s since publishing started): 800
 * events at 400/s. Its transport absorbs ~130 of them (~13 KB at 1,350-byte datagrams) and a 256-event
 * queue the next 256, so ~400 are dropped under lossy however loaded the machine is (a publisher that
 * fell behind catches up: it paces by elapsed time). A healthy consumer keeps 0.64 s of slack.
 */
export const SHORT_STALL = ['--duration', '0.5', '--stall', 'consumer-3@0.5-2.5', '--queue-capacity', '256'];

export const ORCHESTRATOR = fileURLToPath(new URL('../../packages/orchestrator/bin/orchestrator.js', import.meta.url));

export function tempLogFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'state-divergence-test-')), 'run.ndjson');
}

/** Starts the real orchestrator (which starts the real processes). */
export function startDemo(args: string[]) {
  return execa('node', [ORCHESTRATOR, ...args], { reject: false, all: true, env: { NODE_OPTIONS: '' } });
}

export interface LogLine {
  level: number;
  proc: string;
  pid: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * Every line of an NDJSON log, parsed (throws on a line that is not JSON). A log read while the run
 * writes it may end in a line still being written (a write that crosses a page is seen a page at a
 * time): a last line without its newline is not a line yet, and is left for the next read.
 */
export function readLog(file: string): LogLine[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop(); // after the last newline: empty, or a line not yet whole
  return lines.filter((line) => line.length > 0).map((line) => JSON.parse(line) as LogLine);
}

/** True when the pid is gone (or a zombie awaiting a reaper: it runs no code). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Polls until every pid is gone or the deadline passes; returns the survivors. */
export async function survivorsAfter(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = pids.filter((pid) => !isGone(pid));
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Last resort for a failed test: no process of a run may outlive it. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone
      }
    }
  }
}

/** Pids of every process that wrote to the log (each logs `ready` or `mode starting`). */
export function pidsInLog(lines: LogLine[]): number[] {
  return [...new Set(lines.map((line) => line.pid))];
}

/** The --json document, typed by the orchestrator itself: the tests read what it prints, not a copy of its shape. */
export type RunDocument = JsonDocument;
export type ModeRun = JsonRun;
export type ConsumerResult = JsonRun['consumers'][number];

/** A consumer's row by name; fails with the names it has when there is none. */
export function consumerOf(run: ModeRun, name: string): ConsumerResult {
  const found = run.consumers.find((c) => c.name === name);
  if (found === undefined)
    throw new Error(`no ${name} in the ${run.mode} run (it has ${run.consumers.map((c) => c.name).join(', ')})`);
  return found;
}

/**
 * The least time `consumer` of this run was certainly stopped, ms: from its freeze's confirmation (the
 * event's time, once /proc showed it stopped) to the SIGCONT of its thaw (the thaw event's time less
 * its `waitedMs`: that is timed from just before kill(2), and the event dated at the /proc read, so it
 * is never after the SIGCONT acted). Whatever a busy machine delays, it read no frame in between: a
 * stale span it counts from its last frame before the freeze to its first after the thaw is at least
 * this long.
 */
export function surelyFrozenMs(run: ModeRun, consumer: string): number {
  const event = (type: 'freeze' | 'thaw') => {
    const found = run.events.find((e) => e.type === type && e.consumer === consumer);
    if (found?.type !== type) throw new Error(`no ${type} of ${consumer} in the ${run.mode} run`);
    return found;
  };
  const thaw = event('thaw');
  return thaw.at - thaw.waitedMs - event('freeze').at;
}

/** A broker report is missing only if the broker could not be gathered: a failed run, not a finding. */
export function brokerOf(run: ModeRun): NonNullable<ModeRun['broker']> {
  if (run.broker === null) throw new Error(`the ${run.mode} run has no broker report`);
  return run.broker;
}

/** The end of a failed run's stderr, so a red test says why the run failed. */
export function failureDetail(result: {
  exitCode?: number | undefined;
  signal?: string | undefined;
  stderr: unknown;
}): string {
  const stderr = String(result.stderr ?? '')
    .trimEnd()
    .split('\n')
    .slice(-20)
    .join('\n');
  return `the orchestrator exited with ${result.exitCode ?? result.signal}; its stderr ended with:\n${stderr}`;
}

/**
 * Every process a test started, by pid, reaped after each test whatever
 * happened in it: SIGCONT (a frozen process cannot act otherwise) then SIGKILL.
 * One shared clean-up instead of one per test.
 */
export function reapAfterEach(): { track(logFile: string): void } {
  const logs: string[] = [];
  afterEach(() => {
    for (const file of logs.splice(0)) killAll(pidsInLog(readLog(file)));
  });
  return { track: (logFile) => void logs.push(logFile) };
}

/** Runs the real demo with --json and a log file; fails the test on a non-zero exit; reaps leftovers. */
export async function runDemo(args: string[]): Promise<{
  document: RunDocument;
  log: LogLine[];
  logFile: string;
  stdout: string;
  exitCode: number | undefined;
  survivors: number[];
}> {
  const logFile = tempLogFile();
  const result = await startDemo([...args, '--json', '--log-file', logFile]);
  const log = readLog(logFile);
  // Survivors are recorded before they are killed, so a test can assert there were none.
  const survivors = await survivorsAfter(pidsInLog(log), 5_000);
  killAll(survivors);
  if (result.exitCode !== 0) throw new Error(failureDetail(result));
  return {
    document: JSON.parse(String(result.stdout)) as RunDocument,
    log,
    logFile,
    stdout: result.stdout,
    exitCode: result.exitCode,
    survivors,
  };
}
