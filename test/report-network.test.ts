/**
 * The reports of network faults, on a hand-built resync run (helpers/gathered-run.ts's twelve
 * changes), no process started: consumer-2 partitioned 1-3 s (its relay dropped both ways, QUIC
 * at the broker lost and retransmitted, it went stale), consumer-3 on a lossy link and
 * never stale, consumer-1 healthy; the publisher's link delayed 0.5-1 s. The text's lines, the
 * HTML's rows, stale column and timeline, and the publisher's line, all from the --json document.
 */
import { normalizeOptions, type Fault, type JsonDocument } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  renderHtml,
  renderMode,
  toJsonConfig,
  toJsonRun,
  DOCUMENT_VERSION,
} from '@state-divergence/orchestrator/internal';
import type { BrokerReport, RelayReport } from '@state-divergence/protocol';
import { consumerReport, gathered, held } from './helpers/gathered-run.js';
import { subscriberEntry } from './helpers/restart-run.js';

const WALL_MS = 1_000_000;
const RUN_MS = 500;
const wall = (seconds: number) => WALL_MS + seconds * 1000;

const partition: Fault = { kind: 'partition', consumer: 'consumer-2', from: 1, to: 3 };
const loss: Fault = { kind: 'loss', consumer: 'consumer-3', from: 0.5, to: 2.5, lossPct: 20, correlationPct: 75 };
const delay: Fault = { kind: 'delay', consumer: 'publisher', from: 0.5, to: 1, delayMs: 50, jitterMs: 10 };
const config = {
  ...toJsonConfig(normalizeOptions({ mode: 'resync', keys: 6, consumers: 3, duration: 1 }, { stderrIsTTY: false })),
  faults: [delay, loss, partition],
  stall: [],
};

const link = (forwarded: number, dropped: number, maxHeld = 0) => ({
  forwarded,
  dropped,
  bytes: forwarded * 100,
  maxHeld,
});
const relay = (up: ReturnType<typeof link>, down: ReturnType<typeof link>): RelayReport => ({
  role: 'relay',
  up,
  down,
  clients: 1,
  cpuMicros: 1_000,
  caps: [],
});

function document(): JsonDocument {
  const right = consumerReport(held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]));
  const broker: BrokerReport = {
    role: 'broker',
    epoch: 1,
    recovered: null,
    durable: null,
    head: 12,
    lastWriteOffsets: [11, 7, 9, 10, 12, 8],
    digest: '0',
    subscribers: {
      'consumer-1': subscriberEntry({
        delivered: 12,
        lastAccepted: 12,
        transport: { sent: 40, lost: 0, retrans: 0, retransBytes: 0 },
      }),
      'consumer-2': subscriberEntry({
        delivered: 12,
        lastAccepted: 12,
        lags: 1,
        transport: { sent: 90, lost: 31, retrans: 29, retransBytes: 30_720 },
        // One write before the partition (not its), one into it that stayed pending until the heal.
        blockedWrites: [
          { startedAt: wall(0.2), bytesBefore: 2_000, bytes: 600, ms: 150 },
          { startedAt: wall(1.05), bytesBefore: 13_000, bytes: 800, ms: 1_900 },
        ],
      }),
      'consumer-3': subscriberEntry({
        delivered: 12,
        lastAccepted: 12,
        transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
      }),
    },
  };
  // Publish-to-apply latencies, each p99 just below the largest of so few: healthy 11.82 ms, partitioned 1171.6 ms,
  // lossy 140.74 ms.
  const latency = (...ms: number[]) => ({
    latencyMs: Float64Array.from(ms),
    appliedAt: Float64Array.from(ms.map((_, i) => wall(i / 2))),
  });
  const g = gathered(broker, [
    ['consumer-1', { ...right, staleMs: 0, staleSpans: [], latency: latency(4, 5, 6, 12) }],
    [
      'consumer-2',
      { ...right, staleMs: 1_730, staleSpans: [[wall(1.25), wall(2.98)]], latency: latency(5, 40, 900, 1_180) },
    ],
    ['consumer-3', { ...right, staleMs: 0, staleSpans: [], latency: latency(6, 30, 143) }],
  ]);
  g.mode = 'resync';
  g.origin = { runMs: RUN_MS, wallMs: WALL_MS };
  g.consumers = g.consumers.map((c) => ({
    ...c,
    faulted: c.name !== 'consumer-1',
    faults: config.faults.filter((f) => f.consumer === c.name),
  }));
  g.publisher = { ...g.publisher, blockedMs: 240, reconnects: 0, outageMs: 0 };
  g.relays = {
    'consumer-2': relay(link(120, 400), link(300, 1_530)),
    'consumer-3': relay(link(500, 110), link(900, 210)),
    publisher: relay(link(60, 0, 7), link(40, 0, 3)),
  };
  g.events = [
    { at: RUN_MS, type: 'phase', phase: 'converged' },
    { at: RUN_MS + 500, type: 'net-fault', consumer: 'publisher', fault: delay },
    { at: RUN_MS + 1_000, type: 'net-heal', consumer: 'publisher' },
    { at: RUN_MS + 1_000, type: 'net-fault', consumer: 'consumer-2', fault: partition },
    { at: RUN_MS + 3_000, type: 'net-heal', consumer: 'consumer-2' },
    { at: RUN_MS + 4_000, type: 'phase', phase: 'quiesced' },
  ];
  return { version: DOCUMENT_VERSION, config, runs: [toJsonRun(assembleOutcome(g))] };
}

const doc = document();
const [run] = doc.runs;
const text = renderMode(run!, config);
const lines = text.split('\n').map((l) => l.trim());
const after = (name: string) => lines.slice(lines.findIndex((l) => l.startsWith(name)) + 1);

describe('a network fault in the text report', () => {
  test("the faulted consumer's row: its fault, what its relay did each way, what QUIC did at the broker, and how long it was stale", () => {
    expect(text).toMatch(/consumer-2\s+applied\s+6\s+state CORRECT {2}<- partitioned 1-3 s/);
    const mine = after('consumer-2');
    expect(mine).toContain(
      'its relay: to it 300 datagrams forwarded, 1530 dropped; from it 120 forwarded, 400 dropped',
    );
    expect(mine).toContain(
      "the broker's QUIC to it: 90 packets sent, 31 declared lost, 29 retransmitted (30.0 KiB resent)",
    );
    expect(mine).toContain('stale 1.7 s in 1 span (1.25-2.98 s): no frame from the broker for over 750 ms');
  });

  test("the broker's writes to it that blocked during its partition (not one before it), and its p99 beside the healthy ones'", () => {
    const mine = after('consumer-2');
    expect(mine).toContain("the broker's writes to it blocked 1.9 s during its fault (1 write, the longest 1.9 s)");
    expect(mine).toContain(
      "its publish-to-apply p99 over the run 1171.6 ms (its catch-up included); the healthy consumers' at most " +
        '11.82 ms',
    );
    expect(after('consumer-3')).toContain(
      "its publish-to-apply p99 over the run 140.74 ms (its catch-up included); the healthy consumers' at most " +
        '11.82 ms',
    );
    expect(after('consumer-3').join('\n')).not.toContain('blocked'); // nothing blocked for it
  });

  test('a lossy link that never went stale says so; no QUIC line where the broker counted nothing sent', () => {
    expect(text).toMatch(
      /consumer-3\s+applied\s+6\s+state CORRECT {2}<- lossy link 0.5-2.5 s \(20 % lost, 75 % correlated\)/,
    );
    const mine = after('consumer-3');
    expect(mine).toContain('its relay: to it 900 datagrams forwarded, 210 dropped; from it 500 forwarded, 110 dropped');
    expect(mine).toContain('never stale: it heard from the broker throughout');
    expect(mine.join('\n')).not.toContain('QUIC to it');
  });

  test('a healthy consumer never stale gets no network line at all', () => {
    const mine = after('consumer-1');
    expect(
      mine
        .slice(
          0,
          mine.findIndex((l) => l.startsWith('consumer-2')),
        )
        .join('\n'),
    ).not.toMatch(/relay|stale|QUIC/);
  });

  test("the publisher's link: its fault, the time it waited on the broker, that its connection lived, its relay (most held at once under delay)", () => {
    expect(lines).toContain(
      'publisher: delayed link 0.5-1 s (50 ± 10 ms); it waited on the broker 240 ms in all; its connection ' +
        'lived through it',
    );
    expect(lines).toContain(
      "the publisher's relay: to it 40 datagrams forwarded, 0 dropped; from it 60 forwarded, 0 dropped; at most " +
        '7 held at once',
    );
  });

  test('a publisher that reconnected: its reconnects said once, on its usual line', () => {
    const reconnected = { ...run!, publisher: { ...run!.publisher, reconnects: 1, outageMs: 1_733 } };
    const publisherLines = renderMode(reconnected, config)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('publisher:'));
    expect(publisherLines).toEqual([
      'publisher: 1733 ms without a broker; 0 unacknowledged changes discarded; 0 acknowledged lost',
      'publisher: delayed link 0.5-1 s (50 ± 10 ms); it waited on the broker 240 ms in all',
    ]);
  });

  test('the document carries what the lines are drawn from', () => {
    expect(run!.consumers.map((c) => [c.name, c.staleMs, c.staleSpans])).toEqual([
      ['consumer-1', 0, []],
      ['consumer-2', 1_730, [[1.25, 2.98]]],
      ['consumer-3', 0, []],
    ]);
    expect(run!.relays['consumer-2']).toMatchObject({
      up: { dropped: 400 },
      down: { dropped: 1_530 },
      microsPerDatagram: 0.43,
    });
  });
});

describe('a network fault in the HTML report', () => {
  const page = renderHtml(doc);

  test('a stale column (never, or the time) where the mode tracks it, and the link lines under the faulted consumers', () => {
    expect(page).toContain(
      '<th title="time with no frame from the broker for longer than --stale-after, by its own clock">stale</th>',
    );
    expect(page).toMatch(
      /consumer-2 \(partitioned 1-3 s\)<\/td><td>6<\/td><td class="ok">correct<\/td><td>1\.7 s<\/td>/,
    );
    expect(page).toMatch(/consumer-1<\/td><td>6<\/td><td class="ok">correct<\/td><td>never<\/td>/);
    expect(page).toContain(
      '<tr><td></td><td colspan="5"><small>its relay: to it 300 datagrams forwarded, 1530 dropped; from it 120 ' +
        'forwarded, 400 dropped</small></td></tr>',
    );
    expect(page).toContain(
      '<p class="broker">publisher: delayed link 0.5-1 s (50 ± 10 ms); it waited on the broker 240 ms in all; ' +
        'its connection lived through it</p>',
    );
  });

  test("the timeline: the partition as a span and its marks on consumer-2's row, its stale span, the publisher's delay on its row", () => {
    expect(page).toContain('<title>consumer-2: partitioned 1-3 s, 1.00 s–3.00 s</title>');
    expect(page).toContain('<title>consumer-2: link partitioned 1-3 s, 1.00 s</title>');
    expect(page).toContain('<title>consumer-2: link cleared, 3.00 s</title>');
    expect(page).toContain('<title>consumer-2: stale: heard nothing from the broker, 1.25 s–2.98 s</title>');
    expect(page).toContain('stale: a consumer heard nothing from the broker</span>');
    expect(page).toContain('<title>publisher: delayed link 0.5-1 s (50 ± 10 ms), 0.50 s–1.00 s</title>');
    // Shaded on every time chart too, with the consumers' faults.
    expect(page).toContain('publisher delayed link 0.5-1 s (50 ± 10 ms)</span>');
  });

  test('a mode that tracks no staleness has no stale column', () => {
    const lossy = {
      ...doc,
      runs: doc.runs.map((r) => ({
        ...r,
        mode: 'lossy' as const,
        consumers: r.consumers.map((c) => ({ ...c, staleMs: null, staleSpans: [] })),
      })),
    };
    expect(renderHtml(lossy)).not.toContain('>stale</th>');
  });
});
