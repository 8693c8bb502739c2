/**
 * A foreign consumer that breaks the child contract (docs/CONSUMER.md) gets a
 * clear verdict, never an orchestrator crash or hang: the failure is a sentence
 * in its report row, in --json consumers[].contract and on stderr, the exit
 * code is 3 (completed, but a consumer could not be fully judged), the other
 * consumers are still judged, and every process of the run is gone, the
 * misbehaving one included.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { failureDetail, ORCHESTRATOR, pidsInLog, readLog, reapAfterEach, SHORT_STALL, startDemo, survivorsAfter, tempLogFile, type ModeRun, type RunDocument } from './helpers/run-demo.js';

const reaper = reapAfterEach();
const fixture = (name: string): string => `node ${fileURLToPath(new URL(`./fixtures/foreign/${name}.mjs`, import.meta.url))}`;

/**
 * One lossy run with a misbehaving foreign consumer; every pid it started, from the log and the run's
 * own events, with our consumer-3 frozen for 2 s (SHORT_STALL).
 */
async function runWith(name: string, command: string, extra: string[] = []) {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const result = await startDemo(['--mode', 'lossy', ...SHORT_STALL, '--json', '--log-file', logFile, '--consumer-cmd', `${name}=${command}`, ...extra]);
  if (result.exitCode !== 3) throw new Error(failureDetail(result));
  const document = JSON.parse(String(result.stdout)) as RunDocument;
  const run: ModeRun = document.runs[0]!;
  const spawned = run.events.flatMap((e) => (e.type === 'spawned' ? [e.pid] : []));
  const survivors = await survivorsAfter([...pidsInLog(readLog(logFile)), ...spawned], 5_000);
  const row = run.consumers.find((c) => c.name === name)!;
  return { run, row, stderr: String(result.stderr), spawned, survivors, logFile };
}

/** The rest of the run is judged as always: the stalled consumer of ours is wrong, every wrong key explained. */
function expectOthersJudged(run: ModeRun, foreign: string): void {
  const stalled = run.consumers.find((c) => c.name === 'consumer-3' && c.name !== foreign);
  if (stalled) expect(stalled).toMatchObject({ command: null, verdict: 'invalid', unexplained: 0 });
  expect(run.unexplained).toBe(0);
}

test('one that never says ready: the run goes on without it, its row says so, exit 3, nothing left running', async () => {
  const command = fixture('never-ready');
  // 5 s instead of the default 18: the run waits out the whole timeout for a consumer that never answers.
  const { run, row, stderr, spawned, survivors } = await runWith('consumer-2', command, ['--ready-timeout', '5']);
  const failure = `consumer-2 (foreign: ${command}) sent no \`ready\` within 5 s`;
  expect(row).toMatchObject({ command, verdict: 'unknown', applied: null });
  expect(row.contract).toEqual([expect.stringContaining(failure)]);
  expect(row.endedEarly).toMatch(/never became ready/);
  expect(stderr).toContain(`orchestrator: lossy: ${failure}`);
  expect(stderr).toMatch(/a foreign consumer broke the child contract/);
  expect(spawned.length).toBeGreaterThanOrEqual(5); // it was started, and it is gone
  expectOthersJudged(run, 'consumer-2');
  expect(survivors).toEqual([]);
});

test('one that answers gather with garbage: the contract failure says where the map is malformed, its state is unknown', async () => {
  const command = fixture('garbage-gather');
  const { run, row, stderr, survivors, logFile } = await runWith('consumer-3', command);
  const failure = `consumer-3 (foreign: ${command}) answered gather with a malformed map: entries[12] is not [key, version, value]`;
  expect(row).toMatchObject({ command, verdict: 'unknown', applied: null, contract: [failure] });
  expect(run.valid).toBe('unknown');
  expect(stderr).toContain(`orchestrator: lossy: ${failure}`);
  expect(survivors).toEqual([]);
  // The HTML report (rebuilt from the log) names the command and the failure too.
  const html = logFile.replace(/\.ndjson$/, '.html');
  expect((await execa('node', [ORCHESTRATOR, 'analyze', logFile, '--report', html], { reject: false })).exitCode).toBe(0);
  const page = readFileSync(html, 'utf8');
  expect(page).toContain('<small>foreign: node ');
  expect(page).toContain('contract failure: consumer-3 (foreign: ');
  expect(page).toMatch(/consumer-3 \(stalled 0\.5-2\.5 s\)<br><small>foreign: [^<]*<\/small><\/td><td>\?<\/td><td class="bad">unknown<\/td>/);
});

test('one that exits mid-run: ended early and a contract failure, the others judged', async () => {
  const command = fixture('exits-mid-run');
  const { run, row, survivors } = await runWith('consumer-2', command);
  expect(row).toMatchObject({ command, applied: null });
  expect(row.endedEarly).toMatch(/exited with code 0 mid-run/);
  expect(row.contract).toEqual([expect.stringMatching(new RegExp(`^consumer-2 \\(foreign: .*exits-mid-run\\.mjs\\) exited with code 0 mid-run \\(pid \\d+\\), before it was told to stop$`))]);
  expectOthersJudged(run, 'consumer-2');
  expect(survivors).toEqual([]);
});

test('one that ignores stop and SIGTERM: it is still judged, then SIGKILLed, and the report says so', async () => {
  const command = fixture('ignores-sigterm');
  const { row, survivors } = await runWith('consumer-3', command);
  // Its state was gathered and checked like ours: stalled under lossy, it is wrong, and every wrong key is explained.
  expect(row).toMatchObject({ command, verdict: 'invalid', unexplained: 0, endedEarly: null });
  expect(row.contract).toEqual([`consumer-3 (foreign: ${command}) did not exit within 1.5 s of \`stop\`, nor within 1.5 s of SIGTERM: it was killed with SIGKILL`]);
  expect(survivors).toEqual([]);
});
