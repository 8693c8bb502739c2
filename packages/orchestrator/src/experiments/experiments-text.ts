import type { NetworkPoint, RestartPoint } from './experiment-points.js';
import type { ExperimentsDocument, RestartGrowth } from './experiments-document.js';
import { renderSystemsSection } from './systems-text.js';

const pct = (f: number | null): string => (f === null ? '-' : `${Math.round(f * 100)}%`);

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padStart(widths[i]!)).join('   ');
  return [line(header), ...rows.map(line)];
}

function churn(e: NonNullable<ExperimentsDocument['experiments']['churn']>): string[] {
  const rows = e.points.map((p) => [
    String(p.keys),
    String(p.rate),
    p.regime,
    String(p.queueCapacity),
    String(p.published),
    String(p.dropped),
    p.wrongFraction.toFixed(3),
    p.expectedFraction === null ? '-' : p.expectedFraction.toFixed(3),
  ]);
  const peaks = e.peaks.map((p) => {
    if (p.expectedFraction < 0.01)
      return `  ${p.keys} keys: under churn the expectation stays below 1 % at every rate: churn repairs it all`;
    const where = p.rate < p.measuredRates[0] ? 'below' : p.rate > p.measuredRates[1] ? 'above' : 'inside';
    return (
      `  ${p.keys} keys: the expectation peaks at ~${p.rate}/s (wrong fraction ${p.expectedFraction}), ${where}` +
      ` the measured range ${p.measuredRates[0]}–${p.measuredRates[1]}/s`
    );
  });
  return [
    "  1. churn: the stalled consumer's wrong fraction, by keyspace, rate and what follows the gap",
    "     (silence: publishing stops with the stall, the seed's rule; churn: it goes on for two phases)",
    ...table(['keys', 'rate', 'regime', 'queue', 'published', 'dropped', 'wrong', 'expected'], rows),
    ...peaks,
  ];
}

function queue(e: NonNullable<ExperimentsDocument['experiments']['queue']>): string[] {
  const rows = e.points.map((p) => [
    String(p.capacity),
    String(p.rate),
    p.firstDropMs === null ? 'none' : String(p.firstDropMs),
    String(p.dropped),
    String(p.wrong),
    p.expectedWrong === null ? '-' : String(Math.round(p.expectedWrong)),
  ]);
  return [
    '  2. queue: time from SIGSTOP to the first drop, and the damage, by queue capacity',
    ...table(['capacity', 'rate', 'first drop ms', 'dropped', 'wrong', 'expected'], rows),
  ];
}

function overlap(e: NonNullable<ExperimentsDocument['experiments']['overlap']>): string[] {
  const rows = e.points.map((p) => [
    p.windows,
    `${p.wrong[0]} / ${p.wrong[1]}`,
    String(p.both),
    String(p.onlyOne),
    p.jaccard === null ? '-' : p.jaccard.toFixed(2),
  ]);
  return [
    '  3. overlap: two stalled consumers, frozen over the same window or one after the other',
    ...table(['windows', 'wrong (each)', 'both', 'only one', 'Jaccard'], rows),
  ];
}

function hotness(e: NonNullable<ExperimentsDocument['experiments']['hotness']>): string[] {
  const rows = e.points.flatMap((p) => [
    [
      `${p.shape} (${p.wrong} wrong, ${p.expectedWrong === null ? 'unknown' : Math.round(p.expectedWrong)} expected)`,
      'wrong',
      ...p.deciles.map(pct),
    ],
    ['', 'survival', ...p.survival.map(pct)],
  ]);
  return [
    '  4. hotness: by key-hotness decile, hottest first; survival = of the keys that missed an update, the ' +
      'share still wrong',
    ...table(['shape', '', ...Array.from({ length: 10 }, (_, i) => `d${i + 1}`)], rows),
  ];
}

const count = (n: number | null): string => (n === null ? '-' : String(n));

/** Never correct again, or unknown (a verdict is). */
function converged(p: RestartPoint): string {
  if (p.convergedMs !== null) return String(p.convergedMs);
  return p.wrong !== null && p.wrong > 0 ? 'never' : '-';
}

function growthLine(g: RestartGrowth): string {
  const bytes = g.perConsumer.every((p) => p.bytes === 0)
    ? 'nothing sent to catch up'
    : `${g.perConsumer.map((p) => p.bytes).join(' → ')} bytes`;
  const wrong = `${g.perConsumer.map((p) => count(p.wrong)).join(' → ')} keys wrong`;
  const ratio = g.ratio === null ? '' : `; all consumers' bytes ×${g.ratio} (${g.between[1]} vs ${g.between[0]})`;
  return `    ${g.mode}: ${bytes}, ${wrong}${ratio}`;
}

/** Why a relist's size after a restart is not the keyspace's: what the restarted broker knows depends on timing. */
const RELIST = [
  "     A relist carries the restarted broker's table as it is when the consumer gets back; without a log it holds",
  '     only what was published since the restart, so its size follows how long after the publisher each ' +
    'consumer got back.',
];

function restart(e: NonNullable<ExperimentsDocument['experiments']['restart']>): string[] {
  const rows = e.points.map((p) => [
    p.mode,
    String(p.consumers),
    count(p.wrong),
    String(p.reconnectBytes),
    String(Math.round(p.reconnectBytes / p.consumers)),
    converged(p),
  ]);
  const counts = [...new Set(e.points.map((p) => p.consumers))].sort((a, b) => a - b);
  return [
    '  5. restart: the broker SIGKILLed after the first phase and started again a phase later (no consumer faulted;',
    '     publishing goes on for two phases after). wrong: keys wrong at the end, over all consumers; reconnect bytes:',
    "     what brought them back (a relist's snapshot, a replay of what each missed); converged: ms from the broker's",
    '     return until every consumer was correct (never: one ends wrong)',
    ...table(['mode', 'consumers', 'wrong', 'reconnect bytes', 'bytes each', 'converged ms'], rows),
    `     how reconnecting's cost grows with the consumers, per consumer at ${counts.join(' → ')} consumers:`,
    ...e.growth.map(growthLine),
    ...(e.points.some((p) => p.mode === 'resync') ? RELIST : []),
  ];
}

/** A point's fault as its row and its chart name it: "partition 4 s", "loss 20 %". */
export const networkFault = (p: Pick<NetworkPoint, 'fault' | 'size'>): string =>
  `${p.fault} ${p.size} ${p.fault === 'partition' ? 's' : '%'}`;

/** The QUIC idle timeout the network experiment ran with, from the design its document carries (undefined: not said).
 * */
function idleTimeout(document: ExperimentsDocument): number | undefined {
  const design = document.config.design as { network?: { idleTimeout?: unknown } } | null;
  const seconds = design?.network?.idleTimeout;
  return typeof seconds === 'number' ? seconds : undefined;
}

const ms = (n: number | null): string => (n === null ? '-' : String(Math.round(n)));

function network(e: NonNullable<ExperimentsDocument['experiments']['network']>, idle: number | undefined): string[] {
  const rows = e.points.map((p) => [
    networkFault(p),
    p.mode,
    count(p.wrong),
    ms(p.p99Ms),
    ms(p.faultedP99Ms),
    ms(p.staleMs),
  ]);
  return [
    `  6. network: one consumer's link to the broker faulted from the end of the first phase` +
      `${idle === undefined ? '' : ` (QUIC idle timeout ${idle} s)`}: partitioned`,
    '     (both ways, seconds: shorter and longer than the idle timeout) or losing a share of datagrams each ' +
      'way (loss 0: through',
    '     the relay, nothing dropped). wrong: keys wrong at the end over every consumer; p99: publish-to-apply ' +
      'over the run, the',
    "     worst healthy consumer's and the faulted one's (its catch-up included); stale: how long the faulted " +
      'one heard no',
    "     frame from the broker for over --stale-after ms, by its own clock (- where its mode's broker is " +
      'silent when idle)',
    ...table(['fault', 'mode', 'wrong', 'healthy p99 ms', 'faulted p99 ms', 'stale ms'], rows),
  ];
}

/** The experiments as tables, each with the expectation beside what was measured. */
export function renderExperiments(document: ExperimentsDocument): string {
  const { churn: c, queue: q, overlap: o, hotness: h, restart: r, network: n, systems: s } = document.experiments;
  const sections = [
    c && churn(c),
    q && queue(q),
    o && overlap(o),
    h && hotness(h),
    r && restart(r),
    n && network(n, idleTimeout(document)),
    s && renderSystemsSection(s),
  ].filter((s): s is string[] => s !== undefined);
  return sections.map((s) => s.join('\n')).join('\n\n') + '\n';
}
