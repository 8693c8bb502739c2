import { esc } from './html-escape.js';
import { timeBackdrop, timeTicksSvg } from './svg-time.js';
import { FAULT_COLOURS, secondsText, type TimeAxis } from './time-axis.js';
import type { TimelineRow } from './timeline-fold.js';
import { STALE_COLOUR, TONES } from './timeline-rows.js';

/** Wider than a chart: it spans the page, one row per process. */
const W = 1280;
const ROW = 28;
const PAD = { left: 96, right: 16, top: 22, bottom: 36 };
/** Marks closer than this (px) on one row are nudged up and down in turn, so neither hides the other. */
const CROWDED_PX = 7;
/** The list under the drawing names at most this many marks per row. */
const LISTED = 12;

const span = (row: TimelineRow, s: TimelineRow['spans'][number], x: (t: number) => number, mid: number): string => {
  // Drops below the line; a blocked write (the broker's row) or a stale span (a consumer's) above it.
  const [height, y] = s.kind === 'fault' ? [14, mid - 7] : s.kind === 'drops' ? [4, mid + 6] : [4, mid - 10];
  const time = `${secondsText(s.from)}–${secondsText(s.to)}`;
  return (
    `<rect class="span span-${s.kind}" x="${x(s.from).toFixed(1)}" y="${y}" width="` +
    `${Math.max(1.5, x(s.to) - x(s.from)).toFixed(1)}" height="${height}" fill="${s.colour}" fill-opacity="` +
    `${s.kind === 'fault' ? 0.45 : 0.9}"><title>${esc(`${row.name}: ${s.what}, ${time}`)}</title></rect>`
  );
};

/** The timeline section: every process on the charts' time axis, each mark titled "consumer-2: drops started at offset
 * 412, 1.04 s". */
export function timelineSvg(rows: TimelineRow[], axis: TimeAxis): string {
  const bottom = PAD.top + rows.length * ROW;
  const H = bottom + PAD.bottom;
  const x = (t: number) => PAD.left + (t / axis.end) * (W - PAD.left - PAD.right);
  const frame = { x, top: PAD.top, bottom };
  const drawn = rows.map((row, r) => {
    const mid = PAD.top + r * ROW + ROW / 2;
    let lastX = -Infinity;
    let nudge = 0;
    const marks = row.marks.map((m) => {
      const at = x(m.t);
      nudge = at - lastX < CROWDED_PX ? (nudge === -5 ? 5 : -5) : 0;
      lastX = at;
      return (
        `<circle class="mark" cx="${at.toFixed(1)}" cy="${mid + nudge}" r="4.5" fill="${m.colour}" stroke="#fff" ` +
        `stroke-width="1"><title>${esc(`${row.name}: ${m.what}, ${secondsText(m.t)}`)}</title></circle>`
      );
    });
    return (
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${mid}" y2="${mid}" stroke="#e5e7eb"/>` +
      `<text x="${PAD.left - 8}" y="${mid + 4}" text-anchor="end" font-size="12">${esc(row.name)}</text>` +
      row.spans.map((s) => span(row, s, x, mid)).join('') +
      marks.join('')
    );
  });
  const svg =
    `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="Timeline">${timeBackdrop(axis, frame)}` +
    `${timeTicksSvg(axis, frame, 'seconds since publishing started', (PAD.left + W - PAD.right) / 2)}` +
    `${drawn.join('')}</svg>`;
  return (
    `<figure class="wide"><figcaption>Timeline: what happened to each process, when (hover a mark for its ` +
    `name)</figcaption>${svg}${timelineLegend(axis, rows)}${markList(rows)}</figure>`
  );
}

function timelineLegend(axis: TimeAxis, rows: TimelineRow[]): string {
  const kinds = [...new Set(axis.faults.map((f) => f.kind))].map(
    (k) => `<span><i style="background:${FAULT_COLOURS[k]}"></i>${k} (${KIND_MEANING[k]})</span>`,
  );
  const tones = Object.values(TONES).map((t) => `<span><i style="background:${t.colour}"></i>${esc(t.meaning)}</span>`);
  const stale = rows.some((r) => r.spans.some((s) => s.kind === 'stale'))
    ? [`<span><i style="background:${STALE_COLOUR}"></i>stale: a consumer heard nothing from the broker</span>`]
    : [];
  return (
    `<div class="legend">` +
    `${[
      ...kinds,
      ...tones,
      '<span><i style="background:#9ca3af"></i>a write the broker waited on (≥ 100 ms)</span>',
      ...stale,
    ].join('')}` +
    `</div>`
  );
}

const KIND_MEANING: Record<keyof typeof FAULT_COLOURS, string> = {
  stall: 'SIGSTOP until SIGCONT',
  slow: 'stopped part of every 100 ms',
  crash: 'killed until restarted',
  partition: 'every datagram dropped both ways',
  loss: 'a share of datagrams dropped',
  delay: 'datagrams held before forwarding',
  bandwidth: 'at most RATE bytes a second, the rest queued',
};

/** The marks in words, per row, for a reader who cannot hover (a printout, a screenshot). */
function markList(rows: TimelineRow[]): string {
  const items = rows
    .filter((r) => r.marks.length > 0)
    .map((r) => {
      const named = r.marks.slice(0, LISTED).map((m) => `${esc(m.what)} <b>${secondsText(m.t)}</b>`);
      const more = r.marks.length > LISTED ? ` · … ${r.marks.length - LISTED} more` : '';
      return `<li><b>${esc(r.name)}</b>: ${named.join(' · ')}${more}</li>`;
    });
  return `<ul class="marks">${items.join('')}</ul>`;
}
