import type { SweepPoint } from './sweep-point.js';

export type SweepBy = 'rate' | 'keys';

export const EXPECTATION = 'expected: what the run report expects from the offsets each faulted consumer missed (a key ends wrong iff its last write was missed).';

/** The sweep as a table: the swept value, what was published and dropped, the damage and its expectation. */
export function renderSweep(by: SweepBy, points: SweepPoint[]): string {
  const header = [by === 'rate' ? '--rate' : '--keys', 'published', 'dropped', 'wrong keys', 'wrong fraction', 'expected'];
  const rows = points.map((p) => [String(p[by]), String(p.published), String(p.dropped), String(p.wrong), p.wrongFraction.toFixed(3), p.expectedFraction === null ? '-' : p.expectedFraction.toFixed(3)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padStart(widths[i]!)).join('   ');
  return [`  faulted consumers' permanent damage, at-most-once, by ${by}`, line(header), ...rows.map(line), `  ${EXPECTATION}`].join('\n') + '\n';
}

/** One line per point while the sweep runs (stderr). */
export function renderSweepProgress(by: SweepBy, p: SweepPoint): string {
  return `sweep: ${by} ${p[by]}: ${p.wrong} keys wrong (${p.wrongFraction}), expected ${p.expectedFraction ?? 'unknown'}\n`;
}
