import type { SweepPoint } from './sweep-point.js';
import { barChart, esc } from '../report/svg-charts.js';

/** The sweep's report: its table (stdout), a line per point (stderr), its HTML page (--report). */

export type SweepBy = 'rate' | 'keys';

export const EXPECTATION =
  'expected: what the run report expects from the offsets each faulted consumer missed (a key ends wrong iff ' +
  'its last write was missed).';

/** The sweep as a table: the swept value, what was published and dropped, the damage and its expectation. */
export function renderSweep(by: SweepBy, points: SweepPoint[]): string {
  const header = [
    by === 'rate' ? '--rate' : '--keys',
    'published',
    'dropped',
    'wrong keys',
    'wrong fraction',
    'expected',
  ];
  const rows = points.map((p) => [
    String(p[by]),
    String(p.published),
    String(p.dropped),
    String(p.wrong),
    p.wrongFraction.toFixed(3),
    p.expectedFraction === null ? '-' : p.expectedFraction.toFixed(3),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padStart(widths[i]!)).join('   ');
  return (
    [
      `  faulted consumers' permanent damage, at-most-once, by ${by}`,
      line(header),
      ...rows.map(line),
      `  ${EXPECTATION}`,
    ].join('\n') + '\n'
  );
}

/** One line per point while the sweep runs (stderr). */
export function renderSweepProgress(by: SweepBy, p: SweepPoint): string {
  return (
    `sweep: ${by} ${p[by]}: ${p.wrong} keys wrong (${p.wrongFraction}), expected ` +
    `${p.expectedFraction ?? 'unknown'}\n`
  );
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2rem ' +
  'auto;max-width:900px}svg{width:100%;height:auto;font-size:11px}figure{margin:0}' +
  'td,th{border:1px solid #e5e7eb;padding:.2rem .6rem;text-align:right}table{border-collapse:collapse;margin:1rem 0}' +
  '.legend span{margin-right:1rem}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}';

/** The sweep as a self-contained HTML page: measured damage and the expectation, against the swept value. */
export function renderSweepHtml(by: SweepBy, points: SweepPoint[]): string {
  const label = by === 'rate' ? 'rate (changes/s)' : 'keys';
  const xs = points.map((p) => String(p[by]));
  const chart = barChart(`Faulted consumers' wrong fraction by ${label}`, xs, {
    measured: points.map((p) => p.wrongFraction),
    expected: points.map((p) => p.expectedFraction),
  });
  const rows = points
    .map(
      (p, i) =>
        `<tr><td>${xs[i]}</td><td>${p.published}</td><td>${p.dropped}</td><td>${p.wrong}</td><td>` +
        `${p.wrongFraction}</td><td>${p.expectedFraction ?? '-'}</td></tr>`,
    )
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence sweep</title>` +
    `<style>${STYLE}</style></head><body>
<h1>Damage against ${esc(label)}, at-most-once</h1>${chart}
<table><tr><th>${esc(label)}</th><th>published</th><th>dropped</th><th>wrong keys</th>` +
    `<th>wrong fraction</th><th>expected</th></tr>${rows}</table>
<p>${esc(EXPECTATION)}</p></body></html>
`
  );
}
