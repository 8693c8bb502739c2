import { expectedKeysTouched } from '@state-divergence/protocol';
import { barChart, esc } from './svg-charts.js';
import { UsageError } from './errors.js';
import { normalizeOptions, type RawOptions } from './options.js';
import type { ChildRegistry, RunObserver } from './run-mode.js';
import { runMode } from './run-mode.js';

export interface SweepPoint {
  rate: number;
  keys: number;
  published: number;
  /** Events the broker dropped for the stalled consumer(s), averaged. */
  dropped: number;
  wrong: number;
  wrongFraction: number;
  /** sum_k 1 - (1 - p_k)^dropped, over keys: what losing the last `dropped` changes should cost. */
  expectedFraction: number;
}

/** Parses "100,400,1600" for --rate or --keys. */
export function parsePoints(flag: 'rate' | 'keys', text: string): number[] {
  const points = text.split(',').map((part) => Number(part.trim()));
  if (points.length < 2 || points.some((p) => !Number.isFinite(p) || p <= 0)) {
    throw new UsageError(`sweep --${flag} takes two or more positive numbers separated by commas, got ${text}`);
  }
  return points;
}

/**
 * Runs the lossy mode once per point and sets the stalled consumer's wrong
 * fraction beside the analytic expectation for the drops the broker reported.
 * Publishing stops when the stall ends, so a consumer loses the tail of the
 * stream: the expectation is the number of distinct keys among that tail.
 */
export async function sweep(
  by: 'rate' | 'keys',
  points: number[],
  raw: RawOptions,
  context: { signal: AbortSignal; observer: RunObserver; registry: ChildRegistry; onPoint: (point: SweepPoint) => void },
): Promise<SweepPoint[]> {
  const results: SweepPoint[] = [];
  for (const value of points) {
    const options = normalizeOptions({ ...raw, mode: 'lossy', [by]: value }, { stderrIsTTY: Boolean(process.stderr.isTTY) });
    const result = await runMode('lossy', options, context);
    const stalled = result.check.consumers.filter((c) => c.stalled);
    const dropped = stalled.reduce((sum, c) => sum + (result.broker?.subscribers[c.name]?.dropped ?? 0), 0) / stalled.length;
    const wrong = stalled.reduce((sum, c) => sum + c.wrongKeys.length, 0) / stalled.length;
    const point: SweepPoint = {
      rate: options.rate,
      keys: options.keys,
      published: result.published,
      dropped: Math.round(dropped),
      wrong: Math.round(wrong),
      wrongFraction: Math.round((wrong / options.keys) * 1000) / 1000,
      expectedFraction: Math.round((expectedKeysTouched(options.keys, Math.round(dropped)) / options.keys) * 1000) / 1000,
    };
    results.push(point);
    context.onPoint(point);
  }
  return results;
}

export function renderSweep(by: 'rate' | 'keys', points: SweepPoint[]): string {
  const header = [by === 'rate' ? '--rate' : '--keys', 'published', 'dropped', 'wrong keys', 'wrong fraction', 'expected from drops'];
  const rows = points.map((p) => [String(by === 'rate' ? p.rate : p.keys), String(p.published), String(p.dropped), String(p.wrong), p.wrongFraction.toFixed(3), p.expectedFraction.toFixed(3)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padStart(widths[i]!)).join('   ');
  return [
    `  stalled consumer's permanent damage, at-most-once, by ${by}`,
    line(header),
    ...rows.map(line),
    '  expected = sum over keys of 1 - (1 - p_k)^dropped: the keys touched by the lost tail of the stream.',
  ].join('\n') + '\n';
}

/** The sweep as a self-contained HTML page: measured damage and the expectation, against the swept value. */
export function renderSweepHtml(by: 'rate' | 'keys', points: SweepPoint[]): string {
  const label = by === 'rate' ? 'rate (changes/s)' : 'keys';
  const xs = points.map((p) => String(by === 'rate' ? p.rate : p.keys));
  const chart = barChart(`Stalled consumer's wrong fraction by ${label}`, xs, {
    measured: points.map((p) => p.wrongFraction),
    'expected from drops': points.map((p) => p.expectedFraction),
  });
  const rows = points.map((p, i) => `<tr><td>${xs[i]}</td><td>${p.published}</td><td>${p.dropped}</td><td>${p.wrong}</td><td>${p.wrongFraction}</td><td>${p.expectedFraction}</td></tr>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence sweep</title><style>body{font:14px system-ui,sans-serif;margin:2rem auto;max-width:900px}svg{width:100%;height:auto;font-size:11px}figure{margin:0}td,th{border:1px solid #e5e7eb;padding:.2rem .6rem;text-align:right}table{border-collapse:collapse;margin:1rem 0}.legend span{margin-right:1rem}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}</style></head><body>
<h1>Damage against ${esc(label)}, at-most-once</h1>${chart}
<table><tr><th>${esc(label)}</th><th>published</th><th>dropped</th><th>wrong keys</th><th>wrong fraction</th><th>expected</th></tr>${rows}</table>
<p>expected = sum over keys of 1 - (1 - p_k)^dropped, over the keyspace: the keys touched by the lost tail of the stream.</p></body></html>
`;
}
