/**
 * The HTML report's sense of time, on hand-built runs: every fault shaded once
 * on every time drawing, phase lines, tick labels in seconds, and the timeline's
 * marks at the right times, converted from the clock each was taken on.
 */
import { normalizeOptions } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  DOCUMENT_VERSION,
  renderHtml,
  toJsonConfig,
  toJsonRun,
} from '@state-divergence/orchestrator/internal';
import type { BrokerReport, Mode } from '@state-divergence/protocol';
import type { GatheredRun } from '@state-divergence/orchestrator/internal';
import { consumerReport, gathered, held } from './helpers/gathered-run.js';

// Publishing started 500 ms into the mode (run clock) and at wall-clock 1,000,000 ms.
const RUN_MS = 500;
const WALL_MS = 1_000_000;
const event = (seconds: number) => RUN_MS + seconds * 1000;
const wall = (seconds: number) => WALL_MS + seconds * 1000;

const options = normalizeOptions(
  { mode: 'all', keys: 6, consumers: 4, duration: 1, stall: ['consumer-2@1-3'], slow: ['consumer-4@0.5-2.5:80'] },
  { stderrIsTTY: false },
);
const config = toJsonConfig(options);
const right = consumerReport(held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]));
const NAMES = ['consumer-1', 'consumer-2', 'consumer-3', 'consumer-4'];

type Marks = BrokerReport['subscribers'][string]['marks'];

function subscriber(marks: Marks, marksDropped = 0): BrokerReport['subscribers'][string] {
  return {
    queued: 0,
    delivered: 12,
    dropped: 0,
    lastAccepted: 12,
    bytesSent: 0,
    droppedRanges: [],
    maxQueued: 1,
    endedEarly: null,
    disconnectedAt: null,
    disconnects: 0,
    lags: 0,
    blockedWrites: [],
    marks,
    marksDropped,
    resumes: 0,
    resyncBytes: 0,
    resyncFrames: 0,
    fullSnapshotBytes: 0,
    discarded: 0,
    replayedEvents: 0,
    replayBytes: 0,
    backfills: 0,
    transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
  };
}

/**
 * One mode's run: consumer-2 stalled 1-3 s, consumer-4 slowed 0.5-2.5 s; under resync consumer-2 lags and gets a delta,
 * else its drops start at 1.04 s.
 * `c2` replaces consumer-2's broker marks (and `cut` counts those not kept); `more` adds orchestrator events.
 */
function run(mode: Mode, c2Marks?: Marks, more: GatheredRun['events'] = [], cut = 0) {
  const c2 =
    c2Marks ??
    (mode === 'resync'
      ? [
          { at: wall(1.5), what: 'lagged' as const, offset: 4 },
          { at: wall(3.05), what: 'delta sent' as const, offset: 12 },
        ]
      : [
          { at: wall(1.04), what: 'drops started' as const, offset: 5 },
          { at: wall(3.1), what: 'drops ended' as const, offset: 9 },
        ]);
  const broker: BrokerReport = {
    role: 'broker',
    epoch: 1,
    recovered: null,
    durable: null,
    head: 12,
    lastWriteOffsets: [11, 7, 9, 10, 12, 8],
    digest: '0',
    subscribers: {
      ...Object.fromEntries(NAMES.map((n) => [n, subscriber([{ at: wall(-0.2), what: 'subscribed', offset: 0 }])])),
      'consumer-2': subscriber(c2, cut),
    },
  };
  broker.subscribers['consumer-2']!.blockedWrites = [{ startedAt: wall(1.3), bytesBefore: 100, bytes: 50, ms: 1700 }];
  const syncs =
    mode === 'resync' ? [{ kind: 'delta' as const, at: wall(3.12), frames: 4, keys: 4, bytes: 200, offset: 12 }] : [];
  const g = gathered(
    broker,
    NAMES.map((n) => [n, n === 'consumer-2' ? { ...right, syncs } : right]),
  );
  g.mode = mode;
  g.consumers = g.consumers.map((c) => ({
    ...c,
    faulted: c.name === 'consumer-2' || c.name === 'consumer-4',
    faults: options.faults.filter((f) => f.consumer === c.name),
  }));
  g.origin = { runMs: RUN_MS, wallMs: WALL_MS };
  g.wrongOverTime = {
    intervalMs: 250,
    t: [0, 1, 2, 3, 4, 4.9],
    series: {},
    diverged: { 'consumer-2': [0, 0, 3, 3, 0, 0] },
    behind: { 'consumer-2': [0, 1, 2, 0, 0, 0] },
    publisherRate: [0, 400, 400, 400, 0, 0],
  };
  const events: GatheredRun['events'] = [
    { at: event(0), type: 'phase', phase: 'converged' },
    { at: event(0.5), type: 'phase', phase: 'stalled' },
    { at: event(0.5), type: 'slow', consumer: 'consumer-4', pid: 4, percent: 80 },
    { at: event(1), type: 'freeze', consumer: 'consumer-2', pid: 2, waitedMs: 1 },
    { at: event(2.5), type: 'unslow', consumer: 'consumer-4', pid: 4, periods: 20, stoppedPeriods: 20 },
    { at: event(3), type: 'thaw', consumer: 'consumer-2', pid: 2, waitedMs: 0 },
    { at: event(3), type: 'phase', phase: 'recovering' },
    { at: event(3.02), type: 'publisher-done', published: 12 },
    { at: event(4), type: 'phase', phase: 'quiesced' },
  ];
  g.events = [...events, ...more].sort((a, b) => a.at - b.at);
  return toJsonRun(assembleOutcome(g));
}

const page = renderHtml({ version: DOCUMENT_VERSION, config, runs: [run('lossy'), run('resync')] });
/** Each mode's section, and in it every <svg>: the two time charts, the key-rank bars, the timeline. */
const sections = page.split('<h2>').slice(2);
const svgs = (section: string) =>
  section
    .split('<svg')
    .slice(1)
    .map((s) => s.slice(0, s.indexOf('</svg>')));
const timeDrawings = (section: string) =>
  svgs(section).filter((svg) => svg.includes('seconds since publishing started'));
const titles = (svg: string) =>
  [...svg.matchAll(/<circle class="mark"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);

describe('the HTML report over time', () => {
  test('every time chart and the timeline of every mode shade each fault exactly once, in its kind, named by its consumer', () => {
    expect(sections).toHaveLength(2);
    for (const section of sections) {
      const drawings = timeDrawings(section);
      expect(drawings).toHaveLength(3); // diverged and behind, publisher rate, timeline
      for (const svg of drawings) {
        const bands = [
          ...svg.matchAll(
            /<rect class="fault-band" data-fault="(\w+)" data-consumer="([\w-]+)"[^>]*><title>([^<]*)<\/title>/g,
          ),
        ].map((m) => [m[1], m[2], m[3]]);
        expect(bands).toEqual([
          ['slow', 'consumer-4', 'consumer-4 slowed 0.5-2.5 s (80 %)'],
          ['stall', 'consumer-2', 'consumer-2 stalled 1-3 s'],
        ]);
        expect(svg.match(/class="phase-line"/g)).toHaveLength(4);
        expect(svg).toContain('<title>recovering from 3.00 s</title>');
      }
    }
    expect(page).toContain('Shaded on every time chart: ');
    expect(page).not.toContain('<script');
    expect(page).not.toContain('http');
  });

  test('the time axis is labelled in seconds, up to the end of quiesced', () => {
    const [chart] = timeDrawings(sections[0]!);
    const ticks = [...chart!.matchAll(/text-anchor="middle">([\d.]+)<\/text>/g)].map((m) => Number(m[1]));
    expect(ticks).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]);
    expect(chart).not.toContain('(0–');
  });

  test('the timeline has a row per process and each mark at its time, from whichever clock it was taken on', () => {
    const [lossy, resync] = sections.map((s) => timeDrawings(s).at(-1)!);
    for (const name of ['publisher', 'broker', ...NAMES]) expect(lossy).toContain(`font-size="12">${name}</text>`);
    expect(titles(lossy!)).toEqual([
      'publisher: publishing started, 0.00 s',
      'publisher: done: 12 changes published, 3.02 s',
      'consumer-2: frozen (SIGSTOP), 1.00 s',
      'consumer-2: drops started at offset 5, 1.04 s',
      'consumer-2: thawed (SIGCONT), 3.00 s',
      'consumer-2: drops ended (offset 9 accepted), 3.10 s',
      'consumer-4: slowed (80 %), 0.50 s',
      'consumer-4: no longer slowed, 2.50 s',
    ]); // the subscriptions at -0.2 s, before publishing, are off the axis
    expect(lossy).toContain('<title>consumer-2: dropping, 1.04 s–3.10 s</title>');
    expect(lossy).toContain('<title>broker: write to consumer-2 blocked 1.70 s, 1.30 s–3.00 s</title>');
    expect(titles(resync!)).toEqual(
      expect.arrayContaining([
        'consumer-2: lagged: queue discarded, LAG from offset 5, 1.50 s',
        'consumer-2: delta sent up to offset 12, 3.05 s',
        'consumer-2: delta applied (4 keys, to offset 12), 3.12 s',
      ]),
    );
    expect(resync).not.toContain('drops started');
    expect(sections[1]).toContain('<b>consumer-2</b>: frozen (SIGSTOP) <b>1.00 s</b>');
  });
});

describe("the timeline's runs of drops when a subscription ends mid-run", () => {
  // consumer-2's first subscription drops from 1.04 s and never accepts again; its successor subscribes at 2.5 s and
  // drops 2.8-3.1 s.
  const crashedMidRun: Marks = [
    { at: wall(-0.2), what: 'subscribed', offset: 0 },
    { at: wall(1.04), what: 'drops started', offset: 5 },
    { at: wall(2.5), what: 'subscribed', offset: 7 },
    { at: wall(2.8), what: 'drops started', offset: 8 },
    { at: wall(3.1), what: 'drops ended', offset: 10 },
  ];
  const timeline = (c2?: Marks, more: GatheredRun['events'] = [], cut = 0) => {
    const html = renderHtml({ version: DOCUMENT_VERSION, config, runs: [run('lossy', c2, more, cut)] });
    return timeDrawings(html.split('<h2>').slice(2)[0]!).at(-1)!;
  };
  const dropTitles = (svg: string) =>
    [...svg.matchAll(/<rect class="span span-drops"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);

  test("a crash mid-run ends the span at the crash, and the successor's own drops are a span of their own", () => {
    const svg = timeline(crashedMidRun, [
      { at: event(2), type: 'crash', consumer: 'consumer-2', pid: 2 },
      { at: event(2.4), type: 'restart', consumer: 'consumer-2', pid: 5 },
    ]);
    expect(dropTitles(svg)).toEqual([
      'consumer-2: dropping until it crashed, 1.04 s–2.00 s',
      'consumer-2: dropping, 2.80 s–3.10 s',
    ]);
  });

  test('with no event to say when the subscription ended, the span ends at the next subscription', () => {
    expect(dropTitles(timeline(crashedMidRun))).toEqual([
      'consumer-2: dropping until it subscribed again (its subscription ended mid-run), 1.04 s–2.50 s',
      'consumer-2: dropping, 2.80 s–3.10 s',
    ]);
  });

  test('when the broker cut the marks, a run still open says its end is unknown and the row says how many were not kept', () => {
    const svg = timeline(crashedMidRun.slice(0, 4), [], 3);
    expect(dropTitles(svg)).toEqual([
      'consumer-2: dropping until it subscribed again (its subscription ended mid-run), 1.04 s–2.50 s',
      'consumer-2: dropping, end unknown: 3 later marks were not kept, 2.80 s–3.02 s',
    ]);
    expect(titles(svg)).toContain('consumer-2: 3 later marks not kept: the broker keeps only the first 4, 2.80 s');
    expect(dropTitles(timeline())).toEqual(['consumer-2: dropping, 1.04 s–3.10 s']); // nothing cut, nothing said
    expect(timeline()).not.toContain('not kept');
  });
});

describe('a stall is drawn as it happened', () => {
  const bandsOf = (html: string) =>
    timeDrawings(html.split('<h2>').slice(2)[0]!).map((svg) =>
      [...svg.matchAll(/<rect class="fault-band" data-fault="stall"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]),
    );
  const spansOf = (html: string) =>
    [
      ...timeDrawings(html.split('<h2>').slice(2)[0]!)
        .at(-1)!
        .matchAll(/<rect class="span span-fault"[^>]*><title>(consumer-2: stalled[^<]*)<\/title>/g),
    ].map((m) => m[1]);

  test("from its confirmed freeze to its confirmed thaw (the run's events), not from its schedule", () => {
    const late = run('lossy');
    // The SIGSTOP at 1 s showed in /proc 40 ms later, the SIGCONT at 3 s 10 ms later.
    late.events = late.events.map((e) =>
      e.type === 'freeze'
        ? { ...e, at: event(1.04), waitedMs: 40 }
        : e.type === 'thaw'
          ? { ...e, at: event(3.01), waitedMs: 10 }
          : e,
    );
    const html = renderHtml({ version: DOCUMENT_VERSION, config, runs: [late] });
    expect(bandsOf(html)).toEqual(Array(3).fill(['consumer-2 stalled 1.04-3.01 s']));
    expect(spansOf(html)).toEqual(['consumer-2: stalled 1.04-3.01 s, 1.04 s–3.01 s']);
  });

  test('a stall whose freeze was never confirmed (its consumer died first) keeps its schedule', () => {
    const died = run('lossy');
    died.events = died.events.filter((e) => e.type !== 'freeze' && e.type !== 'thaw');
    const html = renderHtml({ version: DOCUMENT_VERSION, config, runs: [died] });
    expect(bandsOf(html)).toEqual(Array(3).fill(['consumer-2 stalled 1-3 s']));
  });
});
