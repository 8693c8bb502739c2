import type { SystemsEdge, SystemsPoint } from './systems-points.js';

/** The systems experiment as the document carries it (experiments-document.ts). */
export interface SystemsSection {
  points: SystemsPoint[];
  edges: SystemsEdge[];
  skipped: string[];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padStart(widths[i]!)).join('   ');
  return [line(header), ...rows.map(line)];
}

const bytes = (n: number | null) => (n === null ? '-' : n.toLocaleString('en-US'));

/** Where the stall was held at the thaw: `rx 49,961 + tx 0`, `closed` when the server had cut the consumer off. */
export const heldWhere = (p: SystemsPoint): string =>
  `rx ${bytes(p.heldReceive)} + tx ${bytes(p.heldServerSend)}${p.closedByServer > 0 ? ', closed' : ''}`;

/** `0.5 s` / `none up to 20 s` */
export function edgeText(e: SystemsEdge): string {
  return e.edgeSeconds === null ? `none up to ${e.upTo} s` : `${e.edgeSeconds} s (correct at ${e.correctBelow} s)`;
}

function predictionText(e: SystemsEdge): string {
  if (e.prediction === null) return 'no prediction';
  const verdict =
    e.withinQuarter === null
      ? e.edgeSeconds === null && (e.prediction.seconds === null || e.prediction.seconds > e.upTo)
        ? 'agrees (beyond the stalls tried)'
        : 'disagrees'
      : e.withinQuarter
        ? 'within 25 %'
        : 'off by more than 25 %';
  return `${e.prediction.limit}; ${verdict}`;
}

/** The grid and the edges as text: one row per point, one line per edge. */
export function renderSystemsSection(section: SystemsSection, number = 7): string[] {
  const rows = section.points.map((p) => [
    p.system,
    p.idiom,
    String(p.rate),
    `${p.stallSeconds}${p.role === 'edge' ? '*' : ''}`,
    p.wrong > 0 ? `WRONG ${p.wrong}` : p.catchingUp > 0 ? `CATCHING UP ${p.catchingUp}` : 'correct',
    p.expectedWrong.toFixed(1),
    String(p.missed),
    String(p.unexplained),
    p.signals,
    heldWhere(p),
    String(p.stallRatePerSec),
  ]);
  return [
    `  ${number}. systems: each installed system × idiom, its third consumer frozen for a stall (s) at a rate` +
      ' (/s), the',
    "     seed's 2,000 keys and 64-byte values. wrong: its keys wrong at the end; expected: the closed form's",
    '     damage from the writes it missed (never applied, after its last relist); held: bytes in its receive',
    "     queue and the server's send queue at the thaw; rate: acknowledged writes/s in the stall. * a bisection run",
    ...table(
      ['system', 'idiom', 'rate', 'stall', 'end', 'expected', 'missed', 'unexpl.', 'signals', 'held', 'rate in stall'],
      rows,
    ),
    '     the edge: the shortest stall that ends the naive idiom wrong, bisected, beside what its limit predicts',
    ...section.edges.map((e) => `    ${e.system} at ${e.rate}/s: ${edgeText(e)}; predicted: ${predictionText(e)}`),
    ...section.skipped.map((line) => `     not installed: ${line}`),
  ];
}
