/**
 * When publishing ends with a stall, the thaw waits for the publisher's last change, however far
 * behind its schedule a busy machine left it: "nothing is published after the thaw" is a condition
 * the plan waits on (steps.ts publishEnd), not a clock. Here the lag is made, not hoped for: the
 * publisher is SIGSTOPped for 1.8 s from the stall's start, so its last changes come ~1 s after the
 * scheduled end of publishing (0.5 s was all the plan used to wait).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  brokerOf,
  consumerOf,
  failureDetail,
  readLog,
  reapAfterEach,
  startDemo,
  tempLogFile,
  type LogLine,
  type RunDocument,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();
const PUBLISHER_FROZEN_MS = 1_800;

test('a publisher 1.8 s behind: the stall ends only after its last change; every change after its queue filled is lost to the frozen consumer, the last one included', async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  // The seed's plan at half-second phases: consumer-3 frozen over [0.5, 1.5), publishing stops at 1.5 s.
  const demo = startDemo([
    '--mode',
    'lossy',
    '--duration',
    '0.5',
    '--queue-capacity',
    '64',
    '--json',
    '--log-file',
    logFile,
  ]);
  const find = (log: LogLine[], proc: string, msg: string) =>
    log.find((line) => line.proc === proc && line.msg === msg);
  const deadline = Date.now() + 30_000;
  let log = readLog(logFile);
  while (find(log, 'orchestrator', 'stall started') === undefined && Date.now() < deadline) {
    await sleep(20);
    log = readLog(logFile);
  }
  const publisher = find(log, 'publisher', 'ready');
  if (find(log, 'orchestrator', 'stall started') === undefined || publisher === undefined)
    throw new Error(`the stall never started; ${failureDetail(await demo)}`);
  process.kill(publisher.pid, 'SIGSTOP');
  try {
    await sleep(PUBLISHER_FROZEN_MS);
  } finally {
    process.kill(publisher.pid, 'SIGCONT');
  }
  const result = await demo;
  if (result.exitCode !== 0) throw new Error(failureDetail(result));
  const run = (JSON.parse(String(result.stdout)) as RunDocument).runs[0]!;
  log = readLog(logFile);
  const timeOf = (proc: string, msg: string) => Date.parse(String(find(log, proc, msg)!.time));
  // It was behind as intended: its last change came well over 0.5 s after publishing was due to stop (1.5 s).
  expect(timeOf('publisher', 'publishing stopped') - run.origin.wallMs).toBeGreaterThan(2_000);
  // And the thaw came after it: with nothing published after the thaw, the frozen consumer lost
  // every change from its queue's overflow on, the last one included, and its row says so.
  expect(timeOf('orchestrator', 'stall ended')).toBeGreaterThanOrEqual(timeOf('publisher', 'publishing stopped'));
  const broker = brokerOf(run);
  expect(broker.subscribers['consumer-3']!.droppedRanges.at(-1)?.[1]).toBe(broker.head);
  expect(consumerOf(run, 'consumer-3')).toMatchObject({ unexplained: 0, endedEarly: null });
  expect(consumerOf(run, 'consumer-3').wrongCount).toBeGreaterThan(0);
});
