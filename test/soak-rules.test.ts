import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rulesText } from '../bench/dist/soak/rules-text.js';
import { DEFAULT_RULES, judgeProcess, runFailures, type SoakRules } from '../bench/dist/soak/rules.js';
import type { ProcessSample, ProcessSeries } from '../bench/dist/soak/recorder.js';
import type { RunRecord } from '../bench/dist/soak/run-once.js';
import { nextRun, type SoakDesign, type SoakRun } from '../bench/dist/soak/schedule.js';

const rules: SoakRules = DEFAULT_RULES;
const WALL0 = 1_700_000_000_000;

/** A synthetic process sampled once a second for `seconds`, RSS (KiB) and descriptors given per second. */
function series(
  seconds: number,
  rssKb: (t: number) => number,
  fds: (t: number) => number,
  name = 'broker',
): ProcessSeries {
  const samples: ProcessSample[] = [];
  for (let t = 0; t <= seconds; t++) {
    const rss = Math.round(rssKb(t));
    samples.push({ t: 100 + t, wall: WALL0 + t * 1000, rssKb: rss, anonKb: rss - 40_000, fileKb: 40_000, fds: fds(t) });
  }
  return { id: `1@1`, pid: 4242, startTicks: 1, name, mode: 'durable', samples };
}

/** A V8 process's RSS: it grows to its working size in its first tens of seconds, then saws up and down around it as it
 * collects. */
const healthyRss = (t: number) =>
  60_000 + 50_000 * Math.min(1, t / 40) + 3_000 * Math.sin(t / 7) + (2_000 * ((t * 7919) % 13)) / 13;
const steadyFds = (t: number) => 22 + (t % 97 === 0 ? 1 : 0);

describe("the soak's trend rules, on synthetic series", () => {
  test('a process that warms up and then holds steady (sawing RSS, a descriptor now and then) passes', () => {
    const verdict = judgeProcess(series(600, healthyRss, steadyFds), rules);
    expect(verdict.judged).toBe(true);
    expect(verdict.failures).toEqual([]);
    expect(Math.abs(verdict.rssSlopePctPerMinute!)).toBeLessThan(rules.maxRssSlopePctPerMinute);
    expect(verdict.start.rssMiB).toBeLessThan(verdict.warm!.rssMiB);
  });

  test('two descriptors leaked a minute fail, and the sentence names the process, the slope and the rule', () => {
    const verdict = judgeProcess(
      series(600, healthyRss, (t) => 22 + Math.floor(t / 30)),
      rules,
    );
    expect(verdict.fdSlopePerMinute).toBeCloseTo(2, 1);
    expect(verdict.failures).toHaveLength(1);
    expect(verdict.failures[0]).toMatch(
      /^durable broker \(pid 4242\): open descriptors grew [12]\.\d+\/min then [12]\.\d+\/min over both halves of the 420 s after a 180 s warm-up \(28 -> 42; the rule: not both above 1\/min\)$/,
    );
  });

  test('RSS that keeps climbing after warm-up fails, by the slope relative to its own size', () => {
    // 2 % of ~110 MiB a minute: ~2.2 MiB/min, well inside what a healthy heap saws by.
    const verdict = judgeProcess(
      series(600, (t) => healthyRss(t) + (t > 40 ? ((t - 40) / 60) * 2_200 : 0), steadyFds),
      rules,
    );
    expect(Math.min(...verdict.rssHalfSlopesPct!)).toBeGreaterThan(rules.maxRssSlopePctPerMinute);
    expect(verdict.failures).toHaveLength(1);
    expect(verdict.failures[0]).toMatch(
      /RSS climbed [\d.]+ %\/min then [\d.]+ %\/min over both halves of the \d+ s after a 180 s warm-up .* MiB; the rule: not both above 1 %\/min of its RSS after warm-up\)$/,
    );
  });

  test('growth inside the warm-up is not judged: a heap that doubles in its first minute and then holds passes', () => {
    const verdict = judgeProcess(
      series(
        400,
        (t) => (t < 60 ? 50_000 + t * 1_000 : 110_000),
        (t) => (t < 60 ? 10 + Math.floor(t / 5) : 22),
      ),
      rules,
    );
    expect(verdict.failures).toEqual([]);
  });

  test('a one-off step (a doubled array of samples) is not a climb; the same growth spread over the span is', () => {
    // +8 MiB at 420 s, in the span's later half: over the whole span a slope above the rule, over its first half
    // nothing.
    const step = judgeProcess(
      series(600, (t) => healthyRss(t) + (t > 420 ? 8_192 : 0), steadyFds),
      rules,
    );
    expect(step.rssSlopePctPerMinute!).toBeGreaterThan(rules.maxRssSlopePctPerMinute);
    expect(step.failures).toEqual([]);
    const climb = judgeProcess(
      series(600, (t) => healthyRss(t) + (t > 180 ? ((t - 180) / 420) * 16_000 : 0), steadyFds),
      rules,
    );
    expect(climb.failures).toHaveLength(1);
  });

  test('what comes after publishing ended (the drain, the report) is not judged: a climb there passes, the same climb inside publishing fails', () => {
    const climbAfter = (t: number) => healthyRss(t) + (t > 300 ? (t - 300) * 400 : 0);
    expect(judgeProcess(series(600, climbAfter, steadyFds), rules, WALL0 + 300_000).failures).toEqual([]);
    expect(judgeProcess(series(600, climbAfter, steadyFds), rules).failures).toHaveLength(1);
  });

  test('a process too short-lived to tell a leak from warm-up is not judged, however it grew', () => {
    const verdict = judgeProcess(
      series(
        rules.warmupSeconds + rules.judgedSeconds - 1,
        (t) => 50_000 + t * 5_000,
        (t) => 20 + t,
      ),
      rules,
    );
    expect(verdict.judged).toBe(false);
    expect(verdict.failures).toEqual([]);
    expect(verdict.end.fds).toBe(20 + rules.warmupSeconds + rules.judgedSeconds - 1);
  });
});

const record = (over: Partial<RunRecord>): RunRecord => ({
  args: ['--mode', 'lossy'],
  startedAt: 0,
  endedAt: 5,
  exitCode: 0,
  stderrTail: [],
  schedule: [],
  modes: [{ mode: 'lossy', verdict: 'invalid', unexplained: 0, publishingEndedWall: WALL0 }],
  documentError: null,
  processes: [],
  disk: [],
  survivors: [],
  lastGoneMs: 3,
  ...over,
});

describe("a run's failures", () => {
  test('a lossy run whose wrong keys are all explained passes: divergence is its expected result', () => {
    expect(runFailures(record({}), [])).toEqual([]);
  });

  test('an unexplained key, an unknown verdict, a non-zero exit, an unreadable document: each is a failure of its own', () => {
    expect(
      runFailures(
        record({ modes: [{ mode: 'resync', verdict: 'invalid', unexplained: 2, publishingEndedWall: null }] }),
        [],
      ),
    ).toEqual(['resync: 2 wrong key(s) the checker could not explain']);
    expect(
      runFailures(
        record({ modes: [{ mode: 'durable', verdict: 'unknown', unexplained: 0, publishingEndedWall: null }] }),
        [],
      ),
    ).toEqual(["durable: the checker's verdict is unknown, so no key is known to be explained"]);
    expect(runFailures(record({ exitCode: 3, stderrTail: ['orchestrator: consumer-3 ended early'] }), [])).toEqual([
      'the orchestrator exited 3: orchestrator: consumer-3 ended early',
    ]);
    expect(
      runFailures(
        record({ documentError: 'its --json document could not be parsed: Unexpected end of JSON input' }),
        [],
      ),
    ).toEqual(['its --json document could not be parsed: Unexpected end of JSON input']);
  });

  test('a process left alive fails the run, and a SIGSTOPped one is named as stopped', () => {
    const failures = runFailures(
      record({
        survivors: [
          { pid: 77, state: 'T', name: 'consumer-3', command: 'node x' },
          { pid: 78, state: 'S', name: 'relay-consumer-1', command: 'node y' },
        ],
        lastGoneMs: 2001,
      }),
      [],
    );
    expect(failures).toEqual([
      'consumer-3 (pid 77) still alive, stopped (SIGSTOP), 2001 ms after the orchestrator exited',
      'relay-consumer-1 (pid 78) still alive (state S) 2001 ms after the orchestrator exited',
    ]);
  });
});

describe("the soak's runs", () => {
  const design: SoakDesign = {
    minutes: 30,
    runs: null,
    seed: 5,
    longMinutes: 6,
    shortRuns: 2,
    shortDuration: 1,
    keepGoing: false,
  };
  const plan = (secondsLeft: (done: SoakRun[]) => number, shape = design) => {
    const done: SoakRun[] = [];
    for (let run = nextRun(shape, done, secondsLeft(done)); run !== null; run = nextRun(shape, done, secondsLeft(done)))
      done.push(run);
    return done;
  };
  // Each run "takes" its planned seconds plus 3 s of start-up and report.
  const spent = (done: SoakRun[]) => done.reduce((sum, r) => sum + r.plannedSeconds + 3, 0);

  test('a cycle is one long run then the short ones; seeds count up from --seed; no run starts after the deadline', () => {
    const runs = plan((done) => design.minutes! * 60 - spent(done));
    expect(runs.slice(0, 4).map((r) => r.kind)).toEqual(['long', 'short', 'short', 'long']);
    expect(runs.map((r) => r.seed)).toEqual(runs.map((_, i) => design.seed + i));
    expect(runs.map((r) => r.index)).toEqual(runs.map((_, i) => i + 1));
    expect(spent(runs.slice(0, -1))).toBeLessThan(design.minutes! * 60);
    // Once a long run no longer fits, short ones fill what is left.
    expect(runs[runs.length - 1]!.kind).toBe('short');
    expect(runs.filter((r) => r.kind === 'long').map((r) => r.mode)).toEqual(
      ['durable', 'resync', 'lossy', 'lossless'].slice(0, runs.filter((r) => r.kind === 'long').length),
    );
  });

  test('a long run publishes for its whole length, so its processes outlive the warm-up and the judged span', () => {
    const long = nextRun(design, [], 3600)!;
    const publishUntil = Number(long.flags[long.flags.indexOf('--publish-until') + 1]);
    expect(publishUntil).toBeGreaterThanOrEqual(design.longMinutes * 60 - 10);
    expect(publishUntil).toBeGreaterThan(rules.warmupSeconds + rules.judgedSeconds);
  });

  test('with --long-minutes 0 every run is short', () => {
    const runs = plan((done) => 600 - spent(done), { ...design, longMinutes: 0 }).map((r) => r.kind);
    expect(runs.length).toBeGreaterThan(50);
    expect(new Set(runs)).toEqual(new Set(['short']));
  });
});

describe('the rules as written down', () => {
  test('docs/SOAK.md states each rule in the very words and numbers the soak judges by (the lines --help prints)', () => {
    const page = readFileSync(fileURLToPath(new URL('../docs/SOAK.md', import.meta.url)), 'utf8');
    const lines = rulesText(DEFAULT_RULES).split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(page).toContain(line);
  });
});
