/**
 * The broker's report really missing, with the real orchestrator and every real
 * process: a foreign consumer (fixtures/foreign/freezes-broker.mjs) SIGSTOPs the
 * broker as it answers its digest check, after the drain and before anyone is
 * gathered, so the broker's gather times out. Without its report no wrong key
 * can be explained: the verdict is unknown with the reason, in --json, on stderr
 * and in the text, never "invalid" with a "BUG: not explained" guess, and the
 * exit code is 3.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  failureDetail,
  ORCHESTRATOR,
  pidsInLog,
  readLog,
  reapAfterEach,
  SHORT_STALL,
  startDemo,
  survivorsAfter,
  tempLogFile,
  type RunDocument,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();
const FREEZES_BROKER = `node ${fileURLToPath(new URL('./fixtures/foreign/freezes-broker.mjs', import.meta.url))}`;
const REASON =
  "the broker's report could not be gathered: which writes it dropped for whom is unknown, so no wrong key can " +
  'be explained';

test('the broker frozen before gather: lossy is unknown with the reason, not invalid; exit 3; nothing left running', async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const result = await startDemo([
    '--mode',
    'lossy',
    ...SHORT_STALL,
    '--json',
    '--log-file',
    logFile,
    '--consumer-cmd',
    `consumer-1=${FREEZES_BROKER}`,
  ]);
  if (result.exitCode !== 3) throw new Error(failureDetail(result));
  const run = (JSON.parse(String(result.stdout)) as RunDocument).runs[0]!;
  expect(run).toMatchObject({ valid: 'unknown', checkerError: REASON, broker: null, unexplained: 0 });
  const byName = Object.fromEntries(run.consumers.map((c) => [c.name, c]));
  // The stalled consumer is wrong (its state says so), but why cannot be told: unknown, nothing expected, nothing
  // called a bug.
  expect(byName['consumer-3']).toMatchObject({ verdict: 'unknown', unexplained: 0, expectedWrong: null, contract: [] });
  expect(byName['consumer-3']!.wrongCount).toBeGreaterThan(0);
  expect(byName['consumer-1']).toMatchObject({ verdict: 'valid', contract: [] }); // the nemesis kept the child contract
  expect(String(result.stderr)).toContain(`orchestrator: lossy: the verdict is unknown: ${REASON}`);
  const log = readLog(logFile);
  expect(log.find((l) => l.msg === 'gather failed' && l.child === 'broker')).toBeDefined();
  // The text report, rebuilt from the log, says the same and calls nothing a bug.
  const text = await execa('node', [ORCHESTRATOR, 'analyze', logFile], { reject: false });
  expect(text.stdout).toContain(`outcome UNKNOWN (${REASON})`);
  expect(text.stdout).not.toMatch(/BUG/);
  const spawned = run.events.flatMap((e) => (e.type === 'spawned' ? [e.pid] : []));
  expect(await survivorsAfter([...pidsInLog(log), ...spawned], 5_000)).toEqual([]);
});
