/**
 * A foreign consumer that breaks the child contract (docs/CONSUMER.md) gets a
 * clear verdict, never an orchestrator crash or hang: the failure is a sentence
 * in its report row, in --json consumers[].contract and on stderr, the exit
 * code is 3 (completed, but a consumer could not be fully judged), the other
 * consumers are still judged, and every process of the run is gone, the
 * misbehaving one included.
 *
 * Two lossy runs, each shared by the tests of its describe block, so the runs' waits (the
 * never-ready timeout, the SIGTERM that is ignored) are paid once, not once per breach: one
 * where the only breach is a garbage gather (the run's verdict is then unknown, which any
 * invalid copy beside it would override), and one where three misbehaving consumers run side
 * by side with consumer-1, ours, frozen (each breach is judged on its own row).
 */
import { readFileSync } from 'node:fs';
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
  type ConsumerResult,
  type ModeRun,
  type RunDocument,
} from './helpers/run-demo.js';

const reaper = reapAfterEach();
const fixture = (name: string): string =>
  `node ${fileURLToPath(new URL(`./fixtures/foreign/${name}.mjs`, import.meta.url))}`;

/** One lossy run with these foreign consumers (name, command); every pid it started, from the log and the run's own
 * events. */
async function runWith(foreign: Array<{ name: string; command: string }>, extra: string[]) {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const commands = foreign.flatMap((c) => ['--consumer-cmd', `${c.name}=${c.command}`]);
  const result = await startDemo(['--mode', 'lossy', ...extra, '--json', '--log-file', logFile, ...commands]);
  if (result.exitCode !== 3) throw new Error(failureDetail(result));
  const run: ModeRun = (JSON.parse(String(result.stdout)) as RunDocument).runs[0]!;
  const spawned = run.events.flatMap((e) => (e.type === 'spawned' ? [{ name: e.name, pid: e.pid }] : []));
  const survivors = await survivorsAfter([...pidsInLog(readLog(logFile)), ...spawned.map((s) => s.pid)], 5_000);
  const row = (name: string): ConsumerResult => run.consumers.find((c) => c.name === name)!;
  return { run, row, stderr: String(result.stderr), spawned, survivors, logFile };
}

describe('a garbage gather, the only breach of its run', () => {
  const { name, command } = { name: 'consumer-3', command: fixture('garbage-gather') };
  let the: Awaited<ReturnType<typeof runWith>>;
  // consumer-3 frozen for 2 s (SHORT_STALL); ours, healthy, are valid.
  beforeAll(async () => (the = await runWith([{ name, command }], SHORT_STALL)));

  test('one that answers gather with garbage: the contract failure says where the map is malformed, its state is unknown', async () => {
    const { run, row, stderr, survivors, logFile } = the;
    const failure =
      `${name} (foreign: ${command}) answered gather with a malformed map: entries[12] is not [key, version, ` +
      `value]`;
    expect(row(name)).toMatchObject({ command, verdict: 'unknown', applied: null, contract: [failure] });
    expect(run.valid).toBe('unknown');
    expect(stderr).toContain(`orchestrator: lossy: ${failure}`);
    expect(survivors).toEqual([]);
    // The HTML report (rebuilt from the log) names the command and the failure too.
    const html = logFile.replace(/\.ndjson$/, '.html');
    expect(
      (await execa('node', [ORCHESTRATOR, 'analyze', logFile, '--report', html], { reject: false })).exitCode,
    ).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<small>foreign: node ');
    expect(page).toContain('contract failure: consumer-3 (foreign: ');
    expect(page).toMatch(
      /consumer-3 \(stalled 0\.5-2\.5 s\)<br><small>foreign: [^<]*<\/small><\/td><td>\?<\/td><td class="bad">unknown<\/td>/,
    );
  });
});

describe('three breaches side by side, ours frozen beside them', () => {
  const NEVER_READY = { name: 'consumer-2', command: fixture('never-ready') };
  const EXITS_MID_RUN = { name: 'consumer-3', command: fixture('exits-mid-run') };
  const IGNORES_SIGTERM = { name: 'consumer-4', command: fixture('ignores-sigterm') };
  /**
   * 6 s instead of the default 18.5: the run waits out the whole timeout for the consumer that never
   * answers. Each process is allowed it from its own spawn, and six boot at once here (five did when
   * each breach had a run of its own, with 5 s: the same second per booting process).
   */
  const READY_TIMEOUT = 6;
  let the: Awaited<ReturnType<typeof runWith>>;
  beforeAll(async () => {
    // Half-second phases around a 2 s stall (as SHORT_STALL) of consumer-1 (ours) and of the one that ignores SIGTERM
    // (judged on its state).
    const stall = [
      '--duration',
      '0.5',
      '--stall',
      `consumer-1@0.5-2.5,${IGNORES_SIGTERM.name}@0.5-2.5`,
      '--queue-capacity',
      '256',
    ];
    the = await runWith(
      [NEVER_READY, EXITS_MID_RUN, IGNORES_SIGTERM],
      ['--consumers', '4', ...stall, '--ready-timeout', String(READY_TIMEOUT)],
    );
  });

  /** The rest of the run is judged as always: our stalled consumer is wrong, every wrong key explained. */
  function expectOthersJudged(): void {
    expect(the.row('consumer-1')).toMatchObject({ command: null, verdict: 'invalid', unexplained: 0 });
    expect(the.run.unexplained).toBe(0);
  }

  test('one that never says ready: the run goes on without it, its row says so, exit 3, nothing left running', () => {
    const { name, command } = NEVER_READY;
    const { row, stderr, spawned, survivors } = the;
    const failure = `${name} (foreign: ${command}) sent no \`ready\` within ${READY_TIMEOUT} s`;
    expect(row(name)).toMatchObject({ command, verdict: 'unknown', applied: null });
    expect(row(name).contract).toEqual([expect.stringContaining(failure)]);
    expect(row(name).endedEarly).toMatch(/never became ready/);
    expect(stderr).toContain(`orchestrator: lossy: ${failure}`);
    expect(stderr).toMatch(/a foreign consumer broke the child contract/);
    expect(spawned.filter((s) => s.name === name)).toHaveLength(1); // it was started, and (survivors) it is gone
    expectOthersJudged();
    expect(survivors).toEqual([]);
  });

  test('one that exits mid-run: ended early and a contract failure, the others judged', () => {
    const { name, command } = EXITS_MID_RUN;
    const { row, survivors } = the;
    expect(row(name)).toMatchObject({ command, applied: null });
    expect(row(name).endedEarly).toMatch(/exited with code 0 mid-run/);
    expect(row(name).contract).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${name} \\(foreign: .*exits-mid-run\\.mjs\\) exited with code 0 mid-run \\(pid \\d+\\), before it ` +
            `was told to stop$`,
        ),
      ),
    ]);
    expectOthersJudged();
    expect(survivors).toEqual([]);
  });

  test('one that ignores stop and SIGTERM: it is still judged, then SIGKILLed, and the report says so', () => {
    const { name, command } = IGNORES_SIGTERM;
    const { row, survivors } = the;
    // Its state was gathered and checked like ours: stalled under lossy, it is wrong, and every wrong key is explained.
    expect(row(name)).toMatchObject({ command, verdict: 'invalid', unexplained: 0, endedEarly: null });
    expect(row(name).contract).toEqual([
      `${name} (foreign: ${command}) did not exit within 1.5 s of \`stop\`, nor within 1.5 s of SIGTERM: it was ` +
        `killed with SIGKILL`,
    ]);
    expect(survivors).toEqual([]);
  });
});
