/**
 * Consumer pools (--pool-size) in one real run: six consumers under lossless, consumer-3 stalled
 * (it runs alone), the other five pooled two at a time: pool-1 hosts consumer-1 and consumer-2,
 * pool-2 consumer-4 and consumer-5, and consumer-6, left over, runs alone. pool-2 is SIGKILLed
 * during the stall. Lossless: every consumer that lives gets every event, so a pooled consumer
 * and a lone one must end with the same counters, digest and verdict, whatever the load. Then a
 * durable run whose broker is SIGKILLed and restarted: pooled consumers hear brokerLost too.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  consumerOf,
  failureDetail,
  pidsInLog,
  readLog,
  reapAfterEach,
  runDemo,
  SHORT_STALL,
  startDemo,
  survivorsAfter,
  tempLogFile,
  type LogLine,
  type ModeRun,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();

interface Run {
  run: ModeRun;
  exitCode: number | undefined;
  stderr: string;
  log: LogLine[];
  killedPid: number;
  survivors: number[];
}

/** Runs it, and kills pool-2 once the stall has started (bounded wait). */
async function runWithPoolKilled(): Promise<Run> {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const demo = startDemo([
    '--mode',
    'lossless',
    ...SHORT_STALL,
    '--consumers',
    '6',
    '--pool-size',
    '2',
    '--json',
    '--log-file',
    logFile,
  ]);
  const deadline = Date.now() + 30_000;
  let pool2: LogLine | undefined;
  while (Date.now() < deadline && pool2 === undefined) {
    await sleep(100);
    const log = readLog(logFile);
    if (log.some((line) => line.msg === 'stall started'))
      pool2 = log.find((line) => line.proc === 'pool-2' && line.msg === 'ready');
  }
  if (pool2 === undefined) throw new Error(`pool-2 never said ready before the stall; ${failureDetail(await demo)}`);
  process.kill(pool2.pid, 'SIGKILL');
  const result = await demo;
  const log = readLog(logFile);
  const [run] = (JSON.parse(String(result.stdout)) as { runs: ModeRun[] }).runs;
  if (run === undefined) throw new Error(failureDetail(result));
  return {
    run,
    exitCode: result.exitCode,
    stderr: String(result.stderr),
    log,
    killedPid: pool2.pid,
    survivors: await survivorsAfter(pidsInLog(log), 5_000),
  };
}

let shared: Promise<Run> | undefined;
const theRun = () => (shared ??= runWithPoolKilled());

test('a pooled consumer and a lone one end the same: applied, last offset, digest and verdict', async () => {
  const { run } = await theRun();
  const pooled = ['consumer-1', 'consumer-2'].map((name) => consumerOf(run, name));
  const lone = consumerOf(run, 'consumer-6');
  expect(pooled.map((c) => c.pool)).toEqual(['pool-1', 'pool-1']);
  expect(lone.pool).toBeNull();
  expect(consumerOf(run, 'consumer-3').pool).toBeNull(); // faulted: always a process of its own
  const sameness = (c: typeof lone) => ({
    applied: c.applied,
    verdict: c.verdict,
    wrongCount: c.wrongCount,
    lost: c.lost,
    unexpected: c.unexpected,
    endedEarly: c.endedEarly,
    digestMatch: c.digestMatch,
    local: c.digest?.local,
    localOffset: c.digest?.localOffset,
    brokerOffset: c.digest?.brokerOffset,
  });
  expect(lone).toMatchObject({ verdict: 'valid', applied: run.published, digestMatch: true, endedEarly: null });
  for (const c of pooled) expect(sameness(c)).toEqual(sameness(lone));
  // Each has its own latency record, as a consumer process of its own has.
  for (const c of [...pooled, lone]) expect(c.latency?.all?.p50).toBeGreaterThan(0);
});

test("a pooled consumer logs as itself from its pool's process; the pool is listed among the processes, its members are not", async () => {
  const { run, log } = await theRun();
  const ready = (proc: string) => log.find((line) => line.proc === proc && line.msg === 'ready');
  expect(ready('consumer-1')).toMatchObject({ pid: ready('pool-1')!.pid, pool: 'pool-1' });
  expect(ready('consumer-6')!.pid).not.toBe(ready('pool-1')!.pid);
  expect(log.filter((line) => line.proc === 'consumer-2' && line.msg === 'digest matches the broker')).toHaveLength(1);
  const names = run.processes.map((p) => `${p.name}:${p.role}`);
  expect(names).toEqual(expect.arrayContaining(['pool-1:pool', 'consumer-6:consumer', 'consumer-3:consumer']));
  expect(names.filter((n) => /^consumer-[1245]:/.test(n))).toEqual([]);
});

test('a pool that dies takes its consumers with it: each row says so, naming the pool; the others are judged; nothing is left running', async () => {
  const { run, exitCode, stderr, killedPid, survivors } = await theRun();
  for (const name of ['consumer-4', 'consumer-5']) {
    expect(consumerOf(run, name).endedEarly).toBe(`its pool pool-2 (pid ${killedPid}) killed by SIGKILL mid-run`);
  }
  expect(exitCode).toBe(3);
  expect(stderr).toMatch(/consumer-4's subscription ended early: its pool pool-2/);
  // lossless: the stalled one only lagged
  expect(consumerOf(run, 'consumer-3')).toMatchObject({ verdict: 'valid', wrongCount: 0 });
  expect(survivors).toEqual([]);
});

test("the broker's crash reaches every pooled consumer: each resumes from its own checkpoint, as the lone one does", async () => {
  const { document } = await runDemo([
    '--mode',
    'durable',
    '--duration',
    '0.5',
    '--crash',
    'broker@1-1.5',
    '--consumers',
    '3',
    '--pool-size',
    '2',
  ]);
  const [run] = document.runs;
  expect(run!.broker?.restarts).toBe(1);
  for (const name of ['consumer-1', 'consumer-2', 'consumer-3']) {
    const c = consumerOf(run!, name);
    expect(c.pool).toBe(name === 'consumer-3' ? null : 'pool-1');
    expect(c).toMatchObject({ verdict: 'valid', wrongCount: 0, endedEarly: null });
    expect(c.resumes.map((r) => r.outcome)).toEqual(['replayed']);
  }
});
