import type { JsonRun } from './document.js';
import { MODE_SHORT } from './labels.js';
import { kib, rate } from './units.js';

/**
 * What each column cost, measured in the same run: one row per figure, one
 * cell per mode (the modes side by side, so four of them fit a 100-column
 * terminal). The text and HTML reports draw these same rows. A row only some
 * runs can have (a broker restart, every consumer wrong, a log, a catch-up)
 * appears when one does.
 */
export interface CostRow {
  label: string;
  cells: string[];
  /** Keys still wrong: the HTML marks a nonzero cell. */
  wrong?: boolean;
}

const orDash = (value: number | null, format: (n: number) => string): string =>
  value === null || value === 0 ? '-' : format(value);

export function costRows(runs: JsonRun[]): CostRow[] {
  const restarted = runs.some((r) => r.brokerOutages.length > 0);
  const row = (label: string, cell: (r: JsonRun) => string, wrong = false): CostRow => ({
    label,
    cells: runs.map(cell),
    ...(wrong && { wrong }),
  });
  const rows = [
    row('published', (r) => String(r.published)),
    row('publisher in stall', (r) => rate(r.cost.publisherRateInStall)),
    row('healthy p99 in stall', (r) =>
      r.cost.healthyP99InStallMs === null ? '-' : `${r.cost.healthyP99InStallMs} ms`,
    ),
    row('faulted wrong at end', (r) => String(r.cost.faultedWrongAtEnd), true),
  ];
  // After a broker restart the consumers no fault touched can end wrong too.
  if (runs.some((r) => r.cost.wrongAtEnd !== r.cost.faultedWrongAtEnd))
    rows.push(row('all wrong at end', (r) => String(r.cost.wrongAtEnd), true));
  const optional = [
    row('delta bytes', (r) => orDash(r.cost.resyncBytes, kib)),
    row('replayed bytes', (r) => orDash(r.cost.replayBytes, kib)),
    row('full snapshots instead', (r) => orDash(r.cost.fullSnapshotBytes, kib)),
    ...(restarted
      ? [row('bytes to reconnect', (r) => (r.brokerOutages.length === 0 ? '-' : kib(r.cost.reconnectBytes)))]
      : []),
    row('log bytes written', (r) => (r.cost.diskBytes === null ? '-' : kib(r.cost.diskBytes))),
    row('fsyncs', (r) => (r.cost.fsyncs === null ? '-' : String(r.cost.fsyncs))),
    row('correct again after', (r) =>
      r.cost.convergedAfterThawMs === null ? '-' : `${r.cost.convergedAfterThawMs} ms`,
    ),
  ];
  rows.push(...optional.filter((r) => r.cells.some((cell) => cell !== '-')));
  if (restarted) rows.push(row('broker restarts', (r) => String(r.brokerOutages.length)));
  return rows;
}

/** What a reader needs to read the rows right (the text prints them under the table, the HTML in its caption). */
export function costNotes(runs: JsonRun[]): string[] {
  return runs.some((r) => r.durable !== null && r.brokerOutages.length > 0)
    ? ["log bytes and fsyncs: the broker's last incarnation, since its restart"]
    : [];
}

/**
 * The rows as a fixed-width table: figures right-aligned under each mode, three spaces apart, or
 * fewer when that is what fits `columns` (a terminal narrower than the table: 80 columns for four modes).
 */
export function costTableText(runs: JsonRun[], columns = Infinity): string[] {
  const rows = costRows(runs);
  const header = runs.map((r) => MODE_SHORT[r.mode]);
  const labelWidth = Math.max(...rows.map((r) => r.label.length));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]!.length)));
  const width = (gap: number) => 2 + labelWidth + widths.reduce((sum, w) => sum + gap + w, 0);
  const gap = [3, 2].find((g) => width(g) <= columns) ?? 1;
  const format = (label: string, cells: string[]) =>
    `  ${label.padEnd(labelWidth)}` + cells.map((cell, i) => `${' '.repeat(gap)}${cell.padStart(widths[i]!)}`).join('');
  return [
    format('', header),
    ...rows.map((r) => format(r.label, r.cells)),
    ...costNotes(runs).map((note) => `  (${note})`),
  ];
}
