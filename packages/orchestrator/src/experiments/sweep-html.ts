import type { SweepPoint } from './sweep-point.js';
import { barChart, esc } from '../report/svg-charts.js';
import { EXPECTATION, type SweepBy } from './sweep-text.js';

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2rem auto;max-width:900px}svg{width:100%;height:auto;font-size:11px}figure{margin:0}' +
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
  const rows = points.map((p, i) => `<tr><td>${xs[i]}</td><td>${p.published}</td><td>${p.dropped}</td><td>${p.wrong}</td><td>${p.wrongFraction}</td><td>${p.expectedFraction ?? '-'}</td></tr>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence sweep</title><style>${STYLE}</style></head><body>
<h1>Damage against ${esc(label)}, at-most-once</h1>${chart}
<table><tr><th>${esc(label)}</th><th>published</th><th>dropped</th><th>wrong keys</th><th>wrong fraction</th><th>expected</th></tr>${rows}</table>
<p>${esc(EXPECTATION)}</p></body></html>
`;
}
