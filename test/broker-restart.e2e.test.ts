/**
 * --crash broker@FROM-TO with the real processes: the broker is SIGKILLed, a new one starts on the
 * same port, the publisher and the consumers (one of them frozen across the restart) reconnect to
 * it, and every process of the run, both brokers included, is reaped. A restarted broker that dies
 * unplanned still ends the run. Under durable the successor recovers the log from the run's data
 * dir, and the data dir is kept (--keep-data) or emptied, an interrupt in the outage included.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  brokerOf,
  consumerOf,
  failureDetail,
  pidsInLog,
  readLog,
  reapAfterEach,
  runDemo,
  startDemo,
  survivorsAfter,
  tempLogFile,
  type LogLine,
  type RunDocument,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();

/** Every broker process of a run, in start order (each says `ready` once). */
const brokerPids = (log: LogLine[]): number[] =>
  log.filter((line) => line.proc === 'broker' && line.msg === 'ready').map((line) => line.pid);

/** Polls the log (bounded) until `seen` holds. */
async function waitForLog(logFile: string, seen: (log: LogLine[]) => boolean): Promise<LogLine[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const log = readLog(logFile);
    if (seen(log) || Date.now() > deadline) return log;
    await sleep(100);
  }
}

test('lossy: the broker crashes at 0.5 s and is back at 1 s on the same port; everyone reconnects, consumer-3 frozen across it too; both brokers reaped', async () => {
  // consumer-3 is frozen before the crash and thawed after the restart: it learns of the crash (brokerLost waits in its
  // IPC pipe) only then.
  const { document, log, survivors } = await runDemo([
    '--mode',
    'lossy',
    '--duration',
    '0.5',
    '--crash',
    'broker@0.5-1',
    '--stall',
    'consumer-3@0.25-1.25',
    '--publish-until',
    '2.5',
  ]);
  const run = document.runs[0]!;
  const since = (at: number) => at - run.origin.runMs;
  const crashes = run.events.filter((e) => e.type === 'broker-crash');
  const restarts = run.events.filter((e) => e.type === 'broker-restart');
  expect(crashes).toHaveLength(1);
  expect(restarts).toEqual([expect.objectContaining({ restarts: 1 })]);
  const [crash, restart] = [crashes[0]!, restarts[0]!];
  // On the plan's times (a busy machine may be late, never early). 1 ms of slack: the origin and the
  // events are each rounded to 0.1 ms and read from a timer that may fire up to 1 ms early (seen: 499.8).
  expect(since(crash.at)).toBeGreaterThanOrEqual(499);
  expect(since(restart.at)).toBeGreaterThanOrEqual(999);
  // Two broker processes: the first is the one killed, the second the one judged.
  const [first, second] = brokerPids(log);
  expect(brokerPids(log)).toHaveLength(2);
  expect(crash).toMatchObject({ pid: first });
  expect(restart).toMatchObject({ pid: second });
  // The restarted broker (in memory: its offsets start again) took changes from the publisher, and every consumer,
  // the one frozen across the restart included, subscribed to it: the final broker knows only its own subscriptions,
  // and the drain (which needs each consumer subscribed there and caught up) completed.
  const broker = brokerOf(run);
  expect(broker.restarts).toBe(1);
  // consumer-3's stall spans two brokers: what the transport absorbed cannot be told (the second counts from 0), so
  // nothing is claimed.
  expect(run.transport.absorbed.filter((a) => a.consumer === 'consumer-3')).toEqual([]);
  expect(run.brokerOutages).toHaveLength(1);
  expect(run.brokerOutages[0]!.from).toBeGreaterThanOrEqual(0.5);
  expect(run.brokerOutages[0]!.to).toBeGreaterThanOrEqual(1);
  expect(broker.head).toBeGreaterThan(0);
  for (const name of ['consumer-1', 'consumer-2', 'consumer-3']) {
    expect(broker.subscribers[name]?.marks.filter((m) => m.what === 'subscribed')).toHaveLength(1);
    expect(consumerOf(run, name).endedEarly).toBeNull();
  }
  expect(run.drain).toMatchObject({ complete: true });
  // Whatever the restart cost each copy, the checker explains all of it.
  expect(run.unexplained).toBe(0);
  expect(survivors).toEqual([]);
});

/** A run with a broker crash at 0.5-1 s, publishing on for long enough to act during or after it. */
function startRun(mode: string, extra: string[] = []) {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const demo = startDemo([
    '--mode',
    mode,
    '--duration',
    '0.5',
    '--crash',
    'broker@0.5-1',
    '--publish-until',
    '30',
    '--json',
    '--log-file',
    logFile,
    ...extra,
  ]);
  return { demo, logFile };
}

test('a restarted broker that dies unplanned ends the run as any broker death does, and everything is reaped', async () => {
  const { demo, logFile } = startRun('lossy');
  const log = await waitForLog(logFile, (lines) => brokerPids(lines).length === 2);
  const successor = brokerPids(log)[1];
  expect(successor).toBeDefined();
  process.kill(successor!, 'SIGKILL');
  const result = await demo;
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`broker \\(pid ${successor}\\) killed by SIGKILL in the middle of the run`));
  expect(await survivorsAfter(pidsInLog(readLog(logFile)), 5_000)).toEqual([]);
});

const emptyDir = () => mkdtempSync(join(tmpdir(), 'broker-restart-data-'));

test("durable: the successor recovers the log from the run's data dir; every copy ends correct, the frozen one included; --keep-data keeps it and says where", async () => {
  const dataDir = emptyDir();
  const logFile = tempLogFile();
  reaper.track(logFile);
  const args = [
    '--mode',
    'durable',
    '--duration',
    '0.5',
    '--crash',
    'broker@0.5-1',
    '--stall',
    'consumer-3@0.25-1.25',
    '--publish-until',
    '2.5',
  ];
  const result = await startDemo([...args, '--data-dir', dataDir, '--keep-data', '--json', '--log-file', logFile]);
  expect(await survivorsAfter(pidsInLog(readLog(logFile)), 5_000)).toEqual([]);
  if (result.exitCode !== 0) throw new Error(failureDetail(result));
  expect(String(result.stderr).trimEnd().split('\n')).toContain(`orchestrator: data kept in ${dataDir}`);
  const run = (JSON.parse(String(result.stdout)) as RunDocument).runs[0]!;
  const broker = brokerOf(run);
  expect(broker.restarts).toBe(1);
  // consumer-3's stall spans two brokers: what the transport absorbed cannot be told (the second counts from 0), so
  // nothing is claimed.
  expect(run.transport.absorbed.filter((a) => a.consumer === 'consumer-3')).toEqual([]);
  // It found what its predecessor had appended (its epoch kept, its offsets continued), and nothing torn by a SIGKILL
  // between records.
  expect(broker.recovered).toMatchObject({ tornTail: 0 });
  expect(broker.recovered!.records).toBeGreaterThan(0);
  for (const name of ['consumer-1', 'consumer-2', 'consumer-3']) {
    expect(consumerOf(run, name)).toMatchObject({
      verdict: 'valid',
      wrongCount: 0,
      digestMatch: true,
      endedEarly: null,
    });
    expect(consumerOf(run, name).resumes).toEqual([expect.objectContaining({ outcome: 'replayed', newEpoch: false })]);
  }
  expect(run.unexplained).toBe(0);
  // Kept: the log where the layout says, and each consumer's checkpoint directory.
  expect(existsSync(join(dataDir, 'durable', 'broker', 'data.mdb'))).toBe(true);
  expect(readdirSync(join(dataDir, 'durable', 'consumers')).sort()).toEqual(['consumer-1', 'consumer-2', 'consumer-3']);
});

test('durable: SIGINT while the broker is down: exit 130, the --data-dir emptied, every process reaped', async () => {
  const dataDir = emptyDir();
  const { demo, logFile } = startRun('durable', ['--data-dir', dataDir]);
  const log = await waitForLog(logFile, (lines) => lines.some((line) => line.msg === 'broker crashed (SIGKILL)'));
  expect(log.some((line) => line.msg === 'broker crashed (SIGKILL)')).toBe(true);
  expect(existsSync(join(dataDir, 'durable', 'broker', 'data.mdb'))).toBe(true);
  demo.kill('SIGINT');
  const result = await demo;
  expect(result.exitCode).toBe(130);
  expect(readdirSync(dataDir)).toEqual([]);
  expect(await survivorsAfter(pidsInLog(readLog(logFile)), 5_000)).toEqual([]);
});
