/**
 * A teardown that never ends is given up on: TEARDOWN_DEADLINE_MS after the abort the session kills
 * every process of the run, the stopped ones included, stops its guardian, says in one line what it
 * was waiting for and exits with the abort's code. One SIGTERM is all a test's timeout or a
 * supervisor sends. The hang is a real one: a Redis someone runs (`--endpoint`) that stops
 * answering (SIGSTOP) mid-run, whose writes in flight and QUIT are never answered.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { TEARDOWN_DEADLINE_MS } from '@state-divergence/orchestrator/internal';
import { knobValues, startServer, systemNamed, type RunningServer } from '@state-divergence/systems';
import { ORCHESTRATOR } from './helpers/run-demo.js';
import { describeIfInstalled } from './helpers/system-run.js';

/** One process as /proc shows it; `start` (its start time in ticks) tells it from a later one with its pid. */
interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  start: string;
  state: string;
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command's closing parenthesis: state, ppid, pgrp, ..., starttime (field 22).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push({
        pid: Number(entry),
        state: fields[0]!,
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        start: fields[19]!,
      });
    } catch {
      // It exited while the directory was read.
    }
  }
  return found;
}

/** `root` and every process descended from it, with the process groups they lead or belong to. */
function treeOf(root: number): Proc[] {
  const all = processes();
  const tree = all.filter((p) => p.pid === root);
  for (let grew = true; grew;) {
    const next = all.filter((p) => !tree.includes(p) && tree.some((parent) => parent.pid === p.ppid));
    tree.push(...next);
    grew = next.length > 0;
  }
  return tree;
}

/**
 * What is still alive of `run` (zombies run no code): the same processes, or any in a group one of
 * them leads (each child of the run leads its own; the root is in its parent's, the test runner's).
 */
function survivors(run: Proc[]): Proc[] {
  const groups = new Set(run.filter((p, i) => i > 0 && p.pgid === p.pid).map((p) => p.pgid));
  return processes().filter(
    (p) => p.state !== 'Z' && (run.some((r) => r.pid === p.pid && r.start === p.start) || groups.has(p.pgid)),
  );
}

async function survivorsAfter(run: Proc[], ms: number): Promise<Proc[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = survivors(run);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(100);
  }
}

/** The line the session ends with, up to what it was waiting for. */
const gaveUp = (why: string) => `orchestrator: ${why}: gave up after ${TEARDOWN_DEADLINE_MS / 1000} s waiting for `;

describeIfInstalled(systemNamed('redis-pubsub'))('a teardown that hangs on a server that stopped answering', () => {
  let server: RunningServer;
  let admin: Redis;

  beforeAll(async () => {
    const system = systemNamed('redis-pubsub');
    server = await startServer('redis-pubsub', system.server, knobValues(system));
    admin = new Redis(server.endpoint.url, { lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    if (server?.pid !== undefined) process.kill(server.pid, 'SIGCONT');
    admin?.disconnect();
    await server?.stop();
  });

  test('one SIGTERM: at the deadline every process of the run is killed, one line says why, exit 143', async () => {
    // A stall longer than the test: consumer-3 is frozen whenever the test acts.
    const run = execa(
      process.execPath,
      [ORCHESTRATOR, '--system', 'redis-pubsub', '--endpoint', server.endpoint.url, '--stall', 'consumer-3@0.5-60'],
      { reject: false, env: { NODE_OPTIONS: '' }, timeout: 60_000, killSignal: 'SIGKILL' },
    );
    // The run's keys on the server: its writer is publishing, every probe consumer is up.
    const publishingBy = Date.now() + 30_000;
    while ((await admin.dbsize()) === 0 && Date.now() < publishingBy) await sleep(50);
    expect(await admin.dbsize()).toBeGreaterThan(0);
    const tree = treeOf(run.pid!);
    // The orchestrator, its guardian and three probe consumers, each child leading its own group.
    expect(tree.length).toBeGreaterThanOrEqual(5);
    expect(tree.slice(1).every((p) => p.pgid === p.pid)).toBe(true);

    process.kill(server.pid!, 'SIGSTOP');
    const signalledAt = Date.now();
    run.kill('SIGTERM');
    const result = await run;
    const tookMs = Date.now() - signalledAt;
    process.kill(server.pid!, 'SIGCONT');

    expect(result.exitCode).toBe(143);
    expect(tookMs).toBeGreaterThanOrEqual(TEARDOWN_DEADLINE_MS);
    expect(tookMs).toBeLessThan(TEARDOWN_DEADLINE_MS + 10_000);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('orchestrator: SIGTERM, stopping every process of the run');
    // Where it hangs depends on whether a write was in flight when the server stopped: publishing waits for it,
    // or, with none, the writer's QUIT at the teardown is never answered. Either is a wait that never ends.
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^orchestrator: SIGTERM: gave up after /)]);
    expect(lines[1]!.startsWith(gaveUp('SIGTERM'))).toBe(true);
    expect(lines[1]).toMatch(
      /waiting for redis-pubsub \(naive\): (the writes in flight to be answered|its writer's connection to close); killed every process of the run$/,
    );
    expect(await survivorsAfter(tree, 5_000)).toEqual([]);
  });
});

/**
 * The same deadline after an internal error (exit 1): the session itself, in a process of its own,
 * around a body whose teardown never ends, with a real process of the run, stopped, under its guard.
 */
test('an internal error whose teardown never ends: the stopped process is killed at the deadline, exit 1', async () => {
  const script = fileURLToPath(new URL('fixtures/hung-teardown.mjs', import.meta.url));
  const run = spawn(process.execPath, [script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  let stderr = '';
  run.stderr.on('data', (data: Buffer) => (stderr += String(data)));
  // Read as soon as the body has started its process.
  const tree = new Promise<Proc[]>((resolve) => run.stdout.once('data', () => resolve(treeOf(run.pid!))));
  const exited = new Promise<number | null>((resolve) => run.on('exit', resolve));
  const startedAt = Date.now();
  const seen = await tree;
  expect(seen.length).toBeGreaterThanOrEqual(3); // the script, its guardian, the sleeper
  const code = await exited;
  expect(code).toBe(1);
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(TEARDOWN_DEADLINE_MS);
  expect(stderr.trim().split('\n')).toEqual([
    `${gaveUp('internal error: Error: boom')}the run to stop; killed every process of the run`,
  ]);
  expect(await survivorsAfter(seen, 5_000)).toEqual([]);
});
