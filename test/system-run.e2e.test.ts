/**
 * `orchestrator --system redis-streams` end to end: a real redis-server, a probe process per
 * consumer, the seed's workload and stall (the last consumer frozen over [d, 3d)), every copy
 * judged. --duration 1.5 at 600/s keeps it short and still trims: a 3 s stall is 1,800 entries,
 * well past the stream's MAXLEN ~1000 (the seed's 400/s would be 1,200, too close to the "~"). Then a Ctrl-C mid-stall: every process reaped, the
 * frozen probe included.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

interface Consumer {
  name: string;
  stalled: boolean;
  state: string;
  wrongKeys: string[];
  relists: number;
  explained: { keys: number; evidence: string }[];
  unexplained: unknown[];
  outOfOrder: number;
  signals: { kind: string }[];
}
interface Run {
  system: string;
  idiom: string;
  unexplained: number;
  stalls: { consumer: string; ratePerSec: number; acknowledged: number }[];
  consumers: Consumer[];
}

/** Changes per second: a 3 s stall at it overflows MAXLEN ~1000 by far. */
const RATE = 600;

async function runSystem(args: string[]): Promise<Run> {
  const result = await execa(
    process.execPath,
    [ORCHESTRATOR, ...args, '--duration', '1.5', '--rate', String(RATE), '--json'],
    {
      reject: false,
      env: { NODE_OPTIONS: '' },
    },
  );
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  const document = JSON.parse(result.stdout) as { kind: string; runs: Run[] };
  expect(document.kind).toBe('system-run');
  expect(document.runs).toHaveLength(1);
  return document.runs[0]!;
}

/** The pids whose parent is `pid` (the server and the probes it started), from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeIfInstalled(systemNamed('redis-streams'))('orchestrator --system redis-streams', () => {
  test('naive: consumer-3 wrong, explained as never delivered with no signal; the others correct', async () => {
    const run = await runSystem(['--system', 'redis-streams']);
    const [one, two, three] = run.consumers;
    expect([one!.state, two!.state]).toEqual(['correct', 'correct']);
    expect(three!.name).toBe('consumer-3');
    expect(three!.stalled).toBe(true);
    expect(three!.state).toBe('wrong');
    expect(three!.wrongKeys.length).toBeGreaterThan(20);
    expect(three!.signals).toEqual([]);
    expect(three!.explained).toEqual([
      { keys: three!.wrongKeys.length, evidence: 'never delivered, no signal at all' },
    ]);
    expect(run.unexplained).toBe(0);
    expect(three!.outOfOrder).toBe(0);
    // The frozen reader did not slow the publisher: the stall went at the asked rate.
    expect(run.stalls[0]!.ratePerSec).toBeGreaterThan(RATE * 0.9);
  });

  test('careful: every consumer correct, the stalled one saw the trim and relisted', async () => {
    const run = await runSystem(['--system', 'redis-streams', '--idiom', 'careful']);
    expect(run.consumers.map((c) => c.state)).toEqual(['correct', 'correct', 'correct']);
    const three = run.consumers[2]!;
    expect(three.relists).toBe(1);
    expect(three.signals.map((s) => s.kind)).toEqual(['trimmed', 'relist']);
    expect(run.consumers.slice(0, 2).map((c) => c.relists)).toEqual([0, 0]);
    expect(run.unexplained).toBe(0);
  });

  test('SIGINT mid-stall: exit 130, the server and every probe reaped, the frozen one included', async () => {
    const child = execa(process.execPath, [ORCHESTRATOR, '--system', 'redis-streams', '--duration', '2'], {
      reject: false,
      env: { NODE_OPTIONS: '' },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Wait for the stall itself (a probe in state T), not for a time after "running": on a loaded
    // machine the start can take seconds longer than the schedule assumes. Bounded.
    const proc = (pid: number, file: string) => {
      try {
        return readFileSync(`/proc/${pid}/${file}`, 'utf8');
      } catch {
        return ''; // gone since childrenOf listed it
      }
    };
    const cmdline = (pid: number) => proc(pid, 'cmdline');
    const isStopped = (pid: number) => proc(pid, 'stat').split(') ')[1]?.startsWith('T') === true;
    // The redis-server and three probes (the guardian is the session's own, and ends in its own time).
    let started: number[] = [];
    let frozen: number[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && frozen.length === 0;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      started = childrenOf(child.pid!).filter((pid) => /redis-server|probe-consumer/.test(cmdline(pid)));
      frozen = started.filter(isStopped);
    }
    expect(frozen).toHaveLength(1);
    expect(started).toHaveLength(4);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toMatch(/SIGINT, stopping every process of the run/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started.filter(alive)).toEqual([]);
  });

  test('a server that fails to start: exit 1 with its log, no probe started', async () => {
    // A redis-server ahead on PATH that says why it will not start and exits.
    const bin = mkdtempSync(join(tmpdir(), 'sd-bad-redis-'));
    writeFileSync(join(bin, 'redis-server'), '#!/bin/sh\necho "refusing to start" >&2\nexit 1\n');
    chmodSync(join(bin, 'redis-server'), 0o755);
    const child = execa(process.execPath, [ORCHESTRATOR, '--system', 'redis-streams', '--duration', '1'], {
      reject: false,
      env: { NODE_OPTIONS: '', PATH: `${bin}:${process.env['PATH'] ?? ''}` },
    });
    const result = await child.finally(() => rmSync(bin, { recursive: true, force: true }));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      'orchestrator: redis-streams server exited before it was ready; its log ends: refusing to start',
    );
    expect(result.stdout).not.toMatch(/consumer-1/);
  });
});
