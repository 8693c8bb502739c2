/**
 * A freeze is a fact of /proc, not of kill(): against real processes, the nemesis records a
 * freeze (and calls the consumer STALLED) only while every thread of its process group is in
 * state T, and a thaw only once none is; a process that dies while being frozen ends the wait
 * at once; without /proc the wait refuses to start. Real child processes, no QUIC: cheap.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { createLogger } from '@state-divergence/runtime';
import { confirmGroup, Nemesis, parseStat, RoleProcess, EventLog } from '@state-divergence/orchestrator/internal';

const logger = createLogger('test', { level: 'silent', file: null, mode: null });
/** The nemesis never talks to its target over IPC: a channel on which nothing ever arrives. */
const idle = { getEachMessage: async function* () {}, sendMessage: () => Promise.resolve() };

/** A child started in a group of its own, as the orchestrator starts every child. */
const spawnDetached = (file: string, args: string[]) =>
  execa(file, args, { detached: true, stdio: 'ignore', reject: false });
type Detached = ReturnType<typeof spawnDetached>;

const started: Detached[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    }
    await child;
  }
});

function spawnGroup(file: string, args: string[]): Detached {
  const child = spawnDetached(file, args);
  started.push(child);
  return child;
}

/**
 * A Node process (several threads) as the orchestrator's handle on a consumer: `busy` spins, as a
 * consumer applying events does; the SIGSTOP of a running process shows in /proc latest (measured
 * reading state right after kill(): still R 119 times in 200 spinning, 13 in 200 asleep).
 */
function realConsumer(name: string, busy = false): RoleProcess<'consumer'> {
  const child = spawnGroup('node', ['-e', busy ? 'for (;;) {}' : 'setInterval(() => {}, 1000)']);
  const ended = child.then((r) => ({
    how: r.signal ? `killed by ${r.signal}` : `exited with code ${r.exitCode}`,
    failure: undefined,
  }));
  return new RoleProcess({ pid: child.pid!, ended, ipc: idle }, 'consumer', name, logger);
}

/** Every thread's state of every process in group `pgid`, read now. */
function groupThreadStates(pgid: number): string[] {
  const members = readdirSync('/proc').filter(
    (entry) => /^\d+$/.test(entry) && parseStat(safeRead(`/proc/${entry}/stat`))?.pgrp === pgid,
  );
  return members.flatMap((pid) =>
    readdirSync(`/proc/${pid}/task`).map(
      (tid) => parseStat(safeRead(`/proc/${pid}/task/${tid}/stat`))?.state ?? 'gone',
    ),
  );
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Waits until the process has its threads (Node starts them as it boots), so a freeze has them all to stop. */
async function booted(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (readdirSync(`/proc/${pid}/task`).length < 4 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

test("stat fields are counted from the command name's last parenthesis: a name may hold spaces and parentheses", () => {
  expect(parseStat('4121 (node) S 4000 4121 4121 0 -1')).toEqual({ state: 'S', pgrp: 4121 });
  expect(parseStat('77 (a) b (c)) T 1 70 70 0 -1')).toEqual({ state: 'T', pgrp: 70 });
  expect(parseStat('')).toBeNull();
});

test('every freeze the nemesis records, the process is in state T at that moment, every thread of it; every thaw, none is', async () => {
  const consumer = realConsumer('consumer-3', true);
  await booted(consumer.pid);
  // The event log's clock is read as each event is recorded: read /proc there too, the process's own state first (one
  // quick read).
  const seen: Array<{ own: string | undefined; threads: string[] }> = [];
  const eventLog = new EventLog(() => {
    seen.push({
      own: parseStat(safeRead(`/proc/${consumer.pid}/stat`))?.state,
      threads: groupThreadStates(consumer.pid),
    });
    return 0;
  });
  const nemesis = new Nemesis(eventLog);
  const states: Array<string | null> = [];
  for (let round = 0; round < 20; round++) {
    const [frozen] = await nemesis.freeze([consumer]);
    expect(frozen).toMatchObject({ confirmed: true, waitedMs: expect.any(Number) });
    states.push(nemesis.activeFault('consumer-3'));
    await nemesis.thaw([consumer]);
  }
  expect(eventLog.events.map((e) => e.type)).toEqual(Array.from({ length: 20 }, () => ['freeze', 'thaw']).flat());
  const atFreeze = seen.filter((_, i) => i % 2 === 0);
  const atThaw = seen.filter((_, i) => i % 2 === 1);
  expect(atFreeze.map((s) => s.own)).toEqual(Array(20).fill('T'));
  expect(atFreeze.every(({ threads }) => threads.length >= 4 && threads.every((s) => s === 'T'))).toBe(true);
  expect(atThaw.map((s) => s.own)).not.toContain('T');
  expect(atThaw.every(({ threads }) => threads.length >= 4 && !threads.includes('T'))).toBe(true);
  expect(states).toEqual(Array(20).fill('stall'));
  expect(nemesis.activeFault('consumer-3')).toBeNull();
});

test('a signal to the group is confirmed for every process in it, not only its leader', async () => {
  const group = spawnGroup('sh', ['-c', 'sleep 60 & sleep 60 & wait']);
  const pgid = group.pid!;
  const deadline = Date.now() + 10_000;
  while (groupThreadStates(pgid).length < 3 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(groupThreadStates(pgid)).toHaveLength(3); // sh and its two sleeps
  process.kill(-pgid, 'SIGSTOP');
  expect(await confirmGroup(pgid, 'stopped')).toMatchObject({ outcome: 'confirmed' });
  expect(groupThreadStates(pgid)).toEqual(['T', 'T', 'T']);
  process.kill(-pgid, 'SIGCONT');
  expect(await confirmGroup(pgid, 'running')).toMatchObject({ outcome: 'confirmed' });
  expect(groupThreadStates(pgid)).not.toContain('T');
});

test("a freeze's and a thaw's wait counts from the signal, not from when the orchestrator got the CPU back after it", async () => {
  const consumer = realConsumer('consumer-3');
  await booted(consumer.pid);
  // A busy machine can hold the orchestrator inside or right after kill(2) while the signal has long acted (the woken
  // consumer runs first): a wait counted from there would date the SIGCONT later than it was (modes.e2e's bound).
  const heldAfterKill = () => {
    const until = performance.now() + 30;
    while (performance.now() < until);
  };
  for (const [signal, wanted] of [
    [() => consumer.freeze(), 'stopped'],
    [() => consumer.thaw(), 'running'],
  ] as const) {
    signal();
    heldAfterKill();
    const confirmation = await consumer.confirm(wanted);
    expect(confirmation.outcome).toBe('confirmed');
    expect(confirmation.waitedMs).toBeGreaterThanOrEqual(30);
  }
});

test('a consumer killed while its SIGSTOP is pending is not frozen: the wait ends when it is gone, and nothing is recorded', async () => {
  const consumer = realConsumer('consumer-2');
  await booted(consumer.pid);
  const eventLog = new EventLog(() => 0);
  const nemesis = new Nemesis(eventLog);
  // It dies as its SIGSTOP is sent: the SIGKILL goes first, so the kernel has marked the group exiting and drops the
  // SIGSTOP, and the process never shows state T. (SIGSTOP then SIGKILL raced: a fresh-clone CI run once read T in
  // between, and the nemesis rightly confirmed a freeze that had happened.)
  const signalled = consumer.freeze.bind(consumer);
  consumer.freeze = () => {
    process.kill(consumer.pid, 'SIGKILL');
    signalled();
  };
  const startedAt = performance.now();
  expect(await nemesis.freeze([consumer])).toMatchObject([{ confirmed: false }]);
  expect(performance.now() - startedAt).toBeLessThan(4_000); // the 5 s bound is for a stop that never shows
  expect(eventLog.events).toEqual([]);
  expect(nemesis.activeFault('consumer-2')).toBeNull();
  expect(await consumer.exited).toBe('killed by SIGKILL');
});

test('without /proc no wait starts: a clear error instead of a hang', async () => {
  await expect(confirmGroup(process.pid, 'stopped', { root: '/no-such-proc' })).rejects.toMatchObject({
    code: 'E_NO_PROC',
    message:
      'cannot confirm a SIGSTOP or SIGCONT: /no-such-proc/self/stat is not readable (this project runs on ' +
      'Linux, with /proc mounted: see README)',
  });
});
