/**
 * The reports of a broker restart and of the durable column, on hand-built runs
 * (helpers/restart-run.ts), one per mode: the cost table with the durable
 * column (four modes side by side within 100 columns of terminal), the --json
 * document's new fields, the text's broker, publisher, log and resume lines,
 * and the outage drawn like any other fault in the HTML (a band on each time
 * drawing, a span and marks on the broker's timeline row).
 */
import { normalizeOptions } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  DOCUMENT_VERSION,
  renderClosing,
  renderHtml,
  renderMode,
  toJsonConfig,
  toJsonRun,
} from '@state-divergence/orchestrator/internal';
import type { Mode } from '@state-divergence/protocol';
import { copy, EPOCHS, restartReport, restartRun, subscription } from './helpers/restart-run.js';

const config = toJsonConfig(normalizeOptions({ mode: 'all', keys: 6, consumers: 2 }, { stderrIsTTY: false }));
const right = copy(7, 8, 3, 15, 14, 16);
const firstUpTo = (lastVersion: number, outcome: 'latest' | 'snapshot' = 'latest') =>
  subscription({ lastOffset: lastVersion, lastVersion, outcome });
const after = (fields: Parameters<typeof subscription>[0]) =>
  subscription({ at: 3_600, epoch: EPOCHS.second, ...fields });

/** consumer-1 wrong after the restart in the modes without a log, consumer-2 right; under durable consumer-2 resumed
 * from a checkpoint. */
function run(mode: Mode) {
  const consumers = {
    lossy: [
      ['consumer-1', restartReport(copy(1, 2, 3, 15, 14, 16), [firstUpTo(6), after({ head: 2 })], { coveredAfter: 2 })],
      ['consumer-2', restartReport(right, [firstUpTo(8), after({ head: 0 })])],
    ],
    resync: [
      [
        'consumer-1',
        restartReport(
          copy(15, 14, 16),
          [firstUpTo(8, 'snapshot'), after({ outcome: 'snapshot', head: 2, catchUpBytes: 300 })],
          {
            removedBySnapshot: [
              [0, 7],
              [1, 8],
              [2, 3],
            ],
          },
        ),
      ],
      [
        'consumer-2',
        restartReport(right, [firstUpTo(8, 'snapshot'), after({ outcome: 'snapshot', head: 0, catchUpBytes: 40 })]),
      ],
    ],
    durable: [
      [
        'consumer-1',
        restartReport(right, [
          firstUpTo(6, 'snapshot'),
          subscription({ at: 3_600, from: 6, outcome: 'replayed', catchUpBytes: 600 }),
        ]),
      ],
      [
        'consumer-2',
        restartReport(right, [subscription({ at: 3_600, from: 6, outcome: 'replayed', catchUpBytes: 900 })], {
          restoredFrom: { offset: 6, epoch: EPOCHS.first, keys: 5 },
        }),
      ],
    ],
  } as const;
  const mine = (mode === 'lossless' ? consumers.lossy : consumers[mode]).map(
    ([name, report]) => [name, report] as [string, typeof report],
  );
  const entries =
    mode === 'durable'
      ? {
          'consumer-1': { replayedEvents: 6, replayBytes: 600 },
          'consumer-2': { replayedEvents: 9, replayBytes: 900, fullSnapshotBytes: 1_200 },
        }
      : {};
  return toJsonRun(assembleOutcome(restartRun(mode, mine, entries)));
}

const runs = (['lossy', 'lossless', 'resync', 'durable'] as const).map(run);
const [lossy, , resync, durable] = runs;
const closing = renderClosing(runs, config).split('\n');
const table = closing.slice(closing.findIndex((line) => /^\s+at-most-once\s+lossless\s+resync\s+durable$/.test(line)));
const cells = (label: string) =>
  table
    .find((line) => line.startsWith(`  ${label} `))
    ?.slice(2 + label.length)
    .trim()
    .split(/\s{3,}/);

describe('the cost table with the durable column', () => {
  test('four modes side by side, every line of the table within 100 columns', () => {
    expect(table.length).toBeGreaterThan(10);
    for (const line of table.slice(
      0,
      table.findIndex((l) => l === ''),
    ))
      expect(line.length).toBeLessThanOrEqual(100);
  });

  test('each figure under its mode: replayed bytes, a full snapshot, log bytes and fsyncs under durable only; wrong keys; restarts', () => {
    expect(cells('replayed bytes')).toEqual(['-', '-', '-', '1.5 KiB']);
    expect(cells('full snapshots instead')).toEqual(['-', '-', '-', '1.2 KiB']);
    expect(cells('log bytes written')).toEqual(['-', '-', '-', '5.0 KiB']);
    expect(cells('fsyncs')).toEqual(['-', '-', '-', '12']);
    expect(cells('bytes to reconnect')).toEqual(['0.0 KiB', '0.0 KiB', '0.3 KiB', '1.5 KiB']);
    expect(cells('faulted wrong at end')).toEqual(['0', '0', '0', '0']);
    expect(cells('all wrong at end')).toEqual(['2', '2', '3', '0']);
    expect(cells('broker restarts')).toEqual(['1', '1', '1', '1']);
    expect(table).toContain("  (log bytes and fsyncs: the broker's last incarnation, since its restart)");
    expect(closing).toContain(
      '  durable replays from its log what a consumer missed (1.5 KiB here) instead of dropping it or sending a delta.',
    );
  });

  test('a row no run has a figure for is left out: without a log or a restart, no log, fsync or restart rows', () => {
    const seed = (['lossy', 'resync'] as const).map((mode) => {
      const g = restartRun(mode, [['consumer-2', restartReport(right, [firstUpTo(8)])]]);
      g.brokerOutages = [];
      g.broker = { ...g.broker!, epoch: EPOCHS.first, head: 15, lastWriteOffsets: [7, 8, 3, 14, 13, 15] };
      g.publisher = { ...g.publisher, discarded: [], reconnects: 0, outageMs: 0, acknowledgedLost: 0 };
      return toJsonRun(assembleOutcome(g));
    });
    const labels = renderClosing(seed, config)
      .split('\n')
      .map((line) => line.trim().split(/\s{3,}/)[0]);
    expect(labels).toEqual(
      expect.arrayContaining(['published', 'publisher in stall', 'healthy p99 in stall', 'faulted wrong at end']),
    );
    for (const label of [
      'replayed bytes',
      'log bytes written',
      'fsyncs',
      'broker restarts',
      'bytes to reconnect',
      'all wrong at end',
    ])
      expect(labels).not.toContain(label);
  });

  test('the document carries the same figures', () => {
    expect(durable!.cost).toMatchObject({
      replayBytes: 1_500,
      fullSnapshotBytes: 1_200,
      diskBytes: 5_120,
      fsyncs: 12,
      reconnectBytes: 1_500,
      wrongAtEnd: 0,
    });
    expect(lossy!.cost).toMatchObject({
      replayBytes: 0,
      diskBytes: null,
      fsyncs: null,
      reconnectBytes: 0,
      wrongAtEnd: 2,
    });
  });

  test('the HTML draws the same rows, the modes as columns', () => {
    const page = renderHtml({ version: DOCUMENT_VERSION, config, runs });
    const costTable = page.slice(
      page.indexOf('<table class="cost">'),
      page.indexOf('</table>', page.indexOf('<table class="cost">')),
    );
    expect(costTable).toContain(
      '<tr><th></th><th>at-most-once</th><th>lossless</th><th>resync</th><th>durable</th></tr>',
    );
    expect(costTable).toContain('<tr><td>fsyncs</td><td>-</td><td>-</td><td>-</td><td>12</td></tr>');
  });
});

describe('--json after a broker restart', () => {
  test("runs[]: the broker's restarts and what it recovered, its outage, the durable figures (null without a log)", () => {
    expect(durable!.broker).toMatchObject({ epoch: EPOCHS.first, restarts: 1, recovered: { records: 8, tornTail: 1 } });
    expect(lossy!.broker).toMatchObject({ epoch: EPOCHS.second, restarts: 1, recovered: null });
    expect(durable!.brokerOutages).toEqual([{ from: 2, to: 2.5 }]);
    // What the log replayed is the consumers' (6 + 9 events, 600 + 900 bytes): the cost's figure, not a second one.
    expect(durable!.durable).toEqual({
      fsync: 'periodic',
      logBytes: 5_120,
      fsyncs: 12,
      replayedEvents: 15,
      replayBytes: 1_500,
      acknowledgedLost: 0,
    });
    expect(lossy!.durable).toBeNull();
    expect(lossy!.publisher).toMatchObject({ reconnects: 1, outageMs: 520, discarded: 1, acknowledgedLost: 8 });
  });

  test('consumers[]: each resume with its epoch and outcome, the checkpoint, the keys a snapshot removed', () => {
    const [c1, c2] = durable!.consumers;
    expect(c1!.resumes).toEqual([
      { at: 3_600, from: 6, epoch: EPOCHS.first, outcome: 'replayed', catchUpBytes: 600, newEpoch: false },
    ]);
    expect(c2!.resumes).toEqual([
      { at: 3_600, from: 6, epoch: EPOCHS.first, outcome: 'replayed', catchUpBytes: 900, newEpoch: false },
    ]);
    expect(c2!.restoredFrom).toEqual({ offset: 6, epoch: EPOCHS.first, keys: 5 });
    expect(resync!.consumers[0]).toMatchObject({
      resumes: [{ outcome: 'snapshot', from: null, epoch: EPOCHS.second, newEpoch: true }],
      removedBySnapshot: 3,
      restoredFrom: null,
    });
    // the RESUMEs it asked for after a gap keep their name
    expect(resync!.consumers[0]!.recovery).toMatchObject({ resumes: 0 });
  });
});

describe('the text report after a broker restart', () => {
  const text = (r: typeof lossy) => renderMode(r!, config).split('\n');

  test('the broker, the publisher and the log each say what the restart did, each within 100 columns', () => {
    expect(text(lossy)).toContain(
      '    broker: killed at 2.00 s, back at 2.50 s: no log, so it came back empty, in a new epoch',
    );
    expect(text(lossy)).toContain(
      '    publisher: 520 ms without a broker; 1 unacknowledged changes discarded; 8 acknowledged lost',
    );
    expect(text(durable)).toContain(
      '    broker: killed at 2.00 s, back at 2.50 s: recovered 8 records (1 torn) from its log, same epoch',
    );
    expect(text(durable)).toContain(
      '    log (fsync periodic): 5.0 KiB in 12 fsyncs since the restart; replayed 15 events (1.5 KiB)',
    ); // the cost table's 1.5 KiB
    expect(text(lossy).some((line) => line.startsWith('    log '))).toBe(false);
    const restartLines = runs
      .flatMap((r) => text(r))
      .filter((line) =>
        /^ {4}(broker|publisher|log)\b|^ {18}(\d+\.\d\d s: |why: |restored |a snapshot removed )/.test(line),
      );
    expect(restartLines.length).toBeGreaterThan(15);
    expect(restartLines.filter((line) => line.length > 100)).toEqual([]);
  });

  test("each consumer's resumes, its checkpoint, what a snapshot removed, and why its wrong keys are wrong", () => {
    const indent = ' '.repeat(18);
    expect(text(durable)).toEqual(
      expect.arrayContaining([
        `${indent}restored its checkpoint: 5 keys at offset 6`,
        `${indent}2.60 s: resumed from its checkpoint at offset 6, same epoch: replayed 0.9 KiB`,
        `${indent}2.60 s: resumed after offset 6, same epoch: replayed 0.6 KiB`,
      ]),
    );
    expect(text(lossy)).toEqual(
      expect.arrayContaining([
        `${indent}2.60 s: subscribed again at latest, new epoch: skips what it missed`,
        `${indent}why: 2 lost with the broker (accepted, never delivered to it)`,
      ]),
    );
    expect(text(resync)).toEqual(
      expect.arrayContaining([
        `${indent}2.60 s: subscribed again, new epoch: a snapshot replaced its copy (0.3 KiB)`,
        `${indent}a snapshot removed 3 keys from its copy: the broker no longer held them`,
        `${indent}why: 3 forgotten by the restarted broker's snapshot`,
      ]),
    );
    expect(text(resync).join('\n')).not.toMatch(/BUG/);
  });
});

describe('the outage drawn like any other fault', () => {
  const page = renderHtml({ version: DOCUMENT_VERSION, config, runs: [lossy!, durable!] });
  const sections = page.split('<h2>').slice(2);
  const timeDrawings = (section: string) =>
    section
      .split('<svg')
      .slice(1)
      .map((s) => s.slice(0, s.indexOf('</svg>')))
      .filter((svg) => svg.includes('seconds since publishing started'));

  test('a band on every time chart and on the timeline, named by the broker, in the legend', () => {
    for (const section of sections) {
      const drawings = timeDrawings(section);
      expect(drawings).toHaveLength(3);
      for (const svg of drawings) {
        const bands = [
          ...svg.matchAll(
            /<rect class="fault-band" data-fault="(\w+)" data-consumer="([\w-]+)"[^>]*><title>([^<]*)<\/title>/g,
          ),
        ].map((m) => m.slice(1));
        expect(bands).toEqual([['crash', 'broker', 'broker crashed and restarted 2-2.5 s']]);
      }
      expect(section).toContain('data-faults="1"');
    }
  });

  test("the broker's timeline row: the outage as a span, a mark where it was killed and one where it came back", () => {
    const [memory, log] = sections.map((s) => timeDrawings(s).at(-1)!);
    expect(memory).toContain('<title>broker: crashed and restarted 2-2.5 s, 2.00 s–2.50 s</title>');
    expect(memory).toContain('<title>broker: killed (SIGKILL), 2.00 s</title>');
    expect(memory).toContain('<title>broker: restarted: empty, in a new epoch, 2.50 s</title>');
    expect(log).toContain('<title>broker: restarted: recovered 8 records (1 torn), same epoch, 2.50 s</title>');
    expect(log).toContain(
      '<title>consumer-2: resumed from its checkpoint at offset 6, same epoch: replayed 0.9 KiB, 2.60 s</title>',
    );
  });
});
