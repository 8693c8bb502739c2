/**
 * The demo end to end: the real orchestrator starts a real broker, publisher
 * and consumers that talk QUIC (TLS 1.3, pinned per-run certificate), freezes
 * consumer-3 with SIGSTOP and resumes it with SIGCONT. One-second phases keep the
 * suite quick and leave healthy consumers ample slack on a loaded machine.
 */
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import {
  brokerOf,
  ORCHESTRATOR,
  pidsInLog,
  readLog,
  runDemo,
  SHORT_STALL,
  startDemo,
  tempLogFile,
  type ModeRun,
} from './helpers/run-demo.js';

describe('lossy (at-most-once): a stalled consumer ends permanently wrong', () => {
  // The default queue (512) and one-second phases: the stalled consumer overflows it
  // (1200 events during the stall), a healthy one would need to fall 0.85 s behind (SHORT_STALL
  // leaves one 0.64 s).
  const RATE = 600;
  const DURATION = 1;
  let run: Awaited<ReturnType<typeof runDemo>>;
  beforeAll(async () => {
    run = await runDemo(['--mode', 'lossy', '--duration', String(DURATION), '--rate', String(RATE)]);
  });

  test('stdout is exactly one JSON document with every flag in config', () => {
    expect(run.document.config).toMatchObject({
      rate: RATE,
      keys: 2000,
      consumers: 3,
      payload: 64,
      queueCapacity: 512,
      duration: DURATION,
      mode: 'lossy',
      stall: ['consumer-3'],
      seed: 1,
    });
    expect(run.document.runs).toHaveLength(1);
  });

  test('the stalled consumer is wrong about many keys; the healthy ones about none', () => {
    const [lossy] = run.document.runs;
    const stalled = lossy!.consumers.filter((c) => c.faulted);
    const healthy = lossy!.consumers.filter((c) => !c.faulted);
    expect(stalled.map((c) => c.name)).toEqual(['consumer-3']);
    const healthyWrong = healthy.reduce((sum, c) => sum + c.wrongKeys.length, 0);
    expect(stalled[0]!.wrongKeys.length).toBeGreaterThan(0);
    expect(stalled[0]!.wrongKeys.length).toBeGreaterThan(20 * healthyWrong);
    for (const c of lossy!.consumers) expect(c.unexpected).toBe(0);
  });

  test('no consumer ended early: the divergence is dropped events, not a broken connection', () => {
    for (const c of run.document.runs[0]!.consumers) expect(c.endedEarly).toBeNull();
  });

  test('the broker dropped events for the stalled consumer only', () => {
    const { subscribers } = brokerOf(run.document.runs[0]!);
    expect(subscribers['consumer-3']!.dropped).toBeGreaterThan(0);
    expect(subscribers['consumer-1']!.dropped).toBe(0);
    expect(subscribers['consumer-2']!.dropped).toBe(0);
    // Every event reached each healthy consumer.
    for (const c of run.document.runs[0]!.consumers.filter((c) => !c.faulted))
      expect(c.applied).toBe(run.document.runs[0]!.published);
  });

  test('the publisher paces to --rate: rate x 3 x duration within 3%', () => {
    const expected = RATE * 3 * DURATION;
    expect(Math.abs(run.document.runs[0]!.published - expected)).toBeLessThanOrEqual(expected * 0.03);
  });

  test('every log line is JSON from a named process, and the run is told in it', () => {
    const procs = new Set(run.log.map((line) => line.proc));
    expect([...procs].sort()).toEqual([
      'broker',
      'consumer-1',
      'consumer-2',
      'consumer-3',
      'guardian',
      'orchestrator',
      'pool-1',
      'publisher',
    ]);
    const messages = run.log.map((line) => `${line.proc}:${line.msg}`);
    for (const expected of [
      'orchestrator:phase',
      'orchestrator:stall started',
      'orchestrator:stall ended',
      'broker:drops started',
      'orchestrator:outcome',
    ]) {
      expect(messages).toContain(expected);
    }
    // Every line written inside the mode says which phase it was written in.
    const phases = new Set(['starting', 'converged', 'stalled', 'recovering', 'quiesced', 'checking', 'teardown']);
    for (const line of run.log.filter((l) => l.msg !== 'config' && l.proc !== 'guardian'))
      expect(phases).toContain(line.phase);
    expect(run.log.find((l) => l.msg === 'drops started')?.phase).toBe('stalled');
    // Drops are aggregated: one line per run of consecutive drops, not one per dropped event.
    const { droppedRanges, dropped } = brokerOf(run.document.runs[0]!).subscribers['consumer-3']!;
    const dropLines = run.log.filter((line) => line.msg === 'drops started' && line.subscriber === 'consumer-3');
    expect(dropLines).toHaveLength(droppedRanges.length);
    expect(droppedRanges.length).toBeLessThanOrEqual(5); // a frozen consumer drops in long runs
    expect(dropped).toBeGreaterThan(10 * droppedRanges.length);
  });

  test('orchestrator analyze rebuilds the same --json document from the log file alone', async () => {
    const analyzed = await execa('node', [ORCHESTRATOR, 'analyze', run.logFile, '--json'], { reject: false });
    expect(analyzed.exitCode).toBe(0);
    expect(JSON.parse(analyzed.stdout)).toEqual(run.document);
  });

  test('no process of the run is left afterwards, the frozen one included', () => {
    // The orchestrator, its guardian, the broker, the publisher, the stalled consumer, and pool-1 hosting the two
    // healthy ones.
    expect(pidsInLog(run.log)).toHaveLength(6);
    expect(run.survivors).toEqual([]); // found (within 5 s of the exit) before anything was killed
  });
});

describe('orchestrator analyze', () => {
  test('rebuilds the same text report the run printed, and the same HTML report', async () => {
    const logFile = tempLogFile();
    const html = logFile.replace(/\.ndjson$/, '.html');
    const printed = await startDemo(['--mode', 'lossy', ...SHORT_STALL, '--log-file', logFile, '--report', html]);
    expect(printed.exitCode).toBe(0);
    const page = readFileSync(html, 'utf8');
    // Self-contained: nothing to fetch, nothing to run; the charts are inline SVG.
    expect(page).not.toMatch(/<script|https?:\/\/|<link /);
    expect(page.match(/<svg /g)!.length).toBe(4); // wrong over time, publisher rate, wrong by key rank, the timeline
    // The stall shaded once on each of the three time drawings (the two charts and the timeline), and on the
    // timeline consumer-3's freeze, its drops starting inside the stall, and its thaw, at their times.
    expect(page.match(/<rect class="fault-band" data-fault="stall" data-consumer="consumer-3"/g)).toHaveLength(3);
    expect(page.match(/class="fault-band"/g)).toHaveLength(3);
    const timeline = page.slice(page.indexOf('<svg class="timeline"'));
    const at = (mark: string) =>
      Number(new RegExp(`<title>consumer-3: ${mark}, ([\\d.]+) s</title>`).exec(timeline)?.[1]);
    // At the times the run did them (its events, in the log's result line, to the 0.01 s the titles
    // show); those are the plan's 0.5 and 2.5 s or later, never earlier (a busy machine is late).
    const run = readLog(logFile).find((line) => line.msg === 'result')!.run as ModeRun;
    const since = (type: 'freeze' | 'thaw') => (run.events.find((e) => e.type === type)!.at - run.origin.runMs) / 1000;
    expect(since('freeze')).toBeGreaterThanOrEqual(0.499);
    expect(since('thaw')).toBeGreaterThanOrEqual(2.499);
    const expectShownAt = (mark: string, type: 'freeze' | 'thaw') => {
      expect(at(mark)).toBeGreaterThanOrEqual(since(type) - 0.0051);
      expect(at(mark)).toBeLessThanOrEqual(since(type) + 0.0051);
    };
    expectShownAt('frozen \\(SIGSTOP\\)', 'freeze');
    expect(at('drops started at offset \\d+')).toBeGreaterThan(at('frozen \\(SIGSTOP\\)'));
    expect(at('drops started at offset \\d+')).toBeLessThan(at('thawed \\(SIGCONT\\)'));
    expectShownAt('thawed \\(SIGCONT\\)', 'thaw');
    expect(page).toContain('What each column cost');
    expect(page).toMatch(/consumer-3 \(stalled 0\.5-2\.5 s\)<\/td><td>\d+<\/td><td class="bad">\d+ of 2000 wrong/);
    const rebuilt = html.replace(/\.html$/, '-rebuilt.html');
    expect(
      (await execa('node', [ORCHESTRATOR, 'analyze', logFile, '--report', rebuilt], { reject: false })).exitCode,
    ).toBe(0);
    expect(readFileSync(rebuilt, 'utf8')).toBe(page);
    const report = printed.stdout
      .split('\n')
      .filter((line) => !line.startsWith('['))
      .join('\n'); // without the progress lines
    const analyzed = await execa('node', [ORCHESTRATOR, 'analyze', logFile], { reject: false });
    expect(analyzed.stdout).toBe(report);
    expect(report).toMatch(/keys PERMANENTLY WRONG {2}<- stalled/);
  });
});
