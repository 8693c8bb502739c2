/**
 * Every exit path of the orchestrator reaps every process of the run, the
 * SIGSTOPped one included, and says what happened: signals, a child crashing,
 * the broker dying, and the orchestrator's own failure (a closed stdout).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isGone,
  pidsInLog,
  readLog,
  reapAfterEach,
  SHORT_STALL,
  startDemo,
  survivorsAfter,
  tempLogFile,
  type LogLine,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();

/**
 * Half-second phases with consumer-3 frozen from 0.5 s. A run that the test interrupts is given a
 * stall far longer than the test (it never ends by itself: whenever the test acts, the consumer is
 * frozen); one that must complete, SHORT_STALL's 2 s stall (its queue overflows whatever the load).
 */
const INTERRUPTED = ['--duration', '0.5', '--stall', 'consumer-3@0.5-60'];

/**
 * Starts a run (lossy unless told) and waits (bounded) until the orchestrator logs consumer-3
 * frozen; `stateWhenLogged` is its state read as soon as the line is seen. The orchestrator logs
 * a freeze only once /proc shows it (nemesis.ts), so that must be T: before it did, a loaded
 * machine caught it in R here, SIGSTOP sent but not yet taken effect.
 */
async function startFrozenRun(extra: string[] = INTERRUPTED, mode = 'lossy') {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const demo = startDemo(['--mode', mode, '--log-file', logFile, ...extra]);
  const deadline = Date.now() + 30_000;
  let stallLine: LogLine | undefined;
  while (!stallLine && Date.now() < deadline) {
    await sleep(20);
    stallLine = readLog(logFile).find((line) => line.msg === 'stall started');
  }
  expect(stallLine).toBeDefined();
  const frozen = (stallLine!.consumers as Array<{ name: string; pid: number; waitedMs: number }>)[0]!;
  const stateWhenLogged = processState(frozen.pid);
  expect(frozen).toMatchObject({ name: 'consumer-3', waitedMs: expect.any(Number) });
  const log = readLog(logFile);
  const pidOf = (proc: string) => log.find((line) => line.proc === proc && line.msg === 'ready')!.pid;
  return { demo, logFile, frozen, stateWhenLogged, pids: pidsInLog(log), pidOf };
}

function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

async function expectAllGone(pids: number[]): Promise<void> {
  expect(await survivorsAfter(pids, 5_000)).toEqual([]);
}

describe('teardown', () => {
  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129], // a terminal closed under the run
  ] as const)(
    '%s in the middle of the stall reaps every process, the frozen one included, without waiting for QUIC',
    async (signal, code) => {
      const run = await startFrozenRun();
      expect(run.stateWhenLogged).toBe('T'); // really SIGSTOPped when the orchestrator said so
      expect(run.pids).toContain(run.frozen.pid);
      const interruptedAt = Date.now();
      run.demo.kill(signal);
      const result = await run.demo;
      expect(result.exitCode).toBe(code);
      // A graceful QUIC close after a stall takes ~40 s with this library; teardown must not wait for it.
      expect(Date.now() - interruptedAt).toBeLessThan(10_000);
      await expectAllGone(run.pids);
      expect(isGone(run.frozen.pid)).toBe(true);
    },
  );

  test.each(['lossy', 'lossless'])(
    '%s: a consumer killed mid-run is reported as ended early, the others are still checked, and the exit code says so',
    async (mode) => {
      // A process per consumer: the test kills one consumer's own (a pool's death is pools.e2e's).
      const run = await startFrozenRun([...SHORT_STALL, '--json', '--pool-size', '1'], mode);
      const victim = run.pidOf('consumer-2');
      process.kill(victim, 'SIGKILL');
      const result = await run.demo;
      expect(result.exitCode).toBe(3);
      expect(result.stderr).toMatch(/a consumer ended early/);
      const consumers = JSON.parse(result.stdout).runs[0].consumers as Array<{
        name: string;
        endedEarly: string | null;
        verdict: string;
        wrongCount: number;
      }>;
      expect(consumers.find((c) => c.name === 'consumer-2')!.endedEarly).toMatch(/killed by SIGKILL/);
      expect(consumers.find((c) => c.name === 'consumer-1')).toMatchObject({
        verdict: 'valid',
        wrongCount: 0,
        endedEarly: null,
      });
      // Lossless: the dead consumer's full queue must not hold the publisher back for good (the orchestrator tells the
      // broker).
      const stalled = consumers.find((c) => c.name === 'consumer-3')!;
      if (mode === 'lossy') expect(stalled.wrongCount).toBeGreaterThan(0);
      else expect(stalled.wrongCount).toBe(0);
      await expectAllGone(run.pids);
    },
  );

  test('the broker dying mid-run ends the run at once with a message naming it; nothing hangs or is left', async () => {
    const run = await startFrozenRun();
    const brokerPid = run.pidOf('broker');
    const killedAt = Date.now();
    process.kill(brokerPid, 'SIGKILL');
    const result = await run.demo;
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`broker \\(pid ${brokerPid}\\) killed by SIGKILL in the middle of the run`),
    );
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    await expectAllGone(run.pids);
  });

  test('SIGKILL of the orchestrator mid-stall: its guardian kills every process of the run within 10 s, the stopped one included, then exits', async () => {
    const run = await startFrozenRun([...INTERRUPTED, '--pool-size', '1']); // each consumer's own group, reaped by name
    expect(run.stateWhenLogged).toBe('T');
    const log = readLog(run.logFile);
    const guardian = log.find((line) => line.proc === 'guardian' && line.msg === 'guarding');
    expect(guardian).toBeDefined(); // it was watching before the first child started
    run.demo.kill('SIGKILL'); // no handler runs: only the guardian is left to act
    await run.demo;
    expect(await survivorsAfter([...run.pids, guardian!.pid], 10_000)).toEqual([]);
    const reaped = readLog(run.logFile).filter(
      (line) => line.proc === 'guardian' && line.msg === 'reaped a process group the orchestrator left behind',
    );
    expect(reaped.map((line) => line.reaped)).toEqual(
      expect.arrayContaining(['broker', 'publisher', 'consumer-1', 'consumer-2', 'consumer-3']),
    );
  });

  test('the orchestrator failing itself (stdout closed under it) still reaps everything', async () => {
    const run = await startFrozenRun();
    run.demo.stdout!.destroy(); // the next progress line hits EPIPE
    const result = await run.demo;
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/stdout was closed/);
    await expectAllGone(run.pids);
  });
});
