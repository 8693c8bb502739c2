import { faultWindow } from '../model/faults.js';
import { esc } from '../report/html-escape.js';
import { timeBackdrop, timeTicksSvg } from '../report/svg-time.js';
import { FAULT_COLOURS, labelledEnd, secondsText, type TimeAxis } from '../report/time-axis.js';
import type { SystemConsumer, SystemRun, SystemRunConfig } from './system-document.js';

/** As wide as our broker's timeline (report/svg-timeline.ts), one row per consumer. */
const W = 1280;
const ROW = 28;
const PAD = { left: 96, right: 16, bottom: 36 };
/** Marks closer than this (px) on one row are nudged up and down in turn, so neither hides the other. */
const CROWDED_PX = 7;
/** The list under the drawing names at most this many signals per consumer (every one has its mark and title). */
const LISTED = 20;

/** One colour per signal kind a probe reports (packages/systems' SignalKind); a kind not named here is grey. */
const SIGNAL_COLOURS: Record<string, string> = {
  disconnect: '#dc2626',
  reconnect: '#0f766e',
  cancel: '#b91c1c',
  reset: '#7c3aed',
  relist: '#1d4ed8',
  trimmed: '#ea580c',
  error: '#111827',
  'slow-consumer': '#ca8a04',
};
const signalColour = (kind: string): string => SIGNAL_COLOURS[kind] ?? '#6b7280';

type Signal = SystemConsumer['signals'][number];
const signalWords = (s: Signal): string => `${s.kind}${s.detail === null ? '' : ` (${s.detail})`}`;

/**
 * A run's time axis, from its document alone: seconds since publishing started, the stall windows
 * to shade (as scheduled: a real system's run records no confirmed freeze), and no phase lines
 * (a real system's run has none), ending past publishing, every stall and every signal.
 */
export function systemAxis(run: SystemRun, config: SystemRunConfig): TimeAxis {
  const faults = run.stalls.map(({ consumer, from, to }) => {
    const fault = { kind: 'stall' as const, consumer, from, to };
    return { ...fault, label: `${consumer} ${faultWindow(fault)}` };
  });
  const signals = run.consumers.flatMap((c) => c.signals.map((s) => s.at));
  const end = Math.max(config.publishEndsAt, ...faults.map((f) => f.to), ...signals);
  return { end: labelledEnd(end), faults, phases: [] };
}

/** A consumer's row: its own stall windows as a band on its line (the backdrop shades all rows), its signals marked. */
function consumerRow(c: SystemConsumer, axis: TimeAxis, r: number, top: number, x: (t: number) => number): string {
  const mid = top + r * ROW + ROW / 2;
  const bands = axis.faults
    .filter((f) => f.consumer === c.name)
    .map(
      (f) =>
        `<rect class="stall-band" x="${x(f.from).toFixed(1)}" y="${mid - 7}" width="` +
        `${Math.max(1.5, x(Math.min(f.to, axis.end)) - x(f.from)).toFixed(1)}" height="14" fill="` +
        `${FAULT_COLOURS.stall}" fill-opacity="0.45"><title>${esc(f.label)}</title></rect>`,
    );
  let lastX = -Infinity;
  let nudge = 0;
  const marks = c.signals.map((s) => {
    const at = x(s.at);
    nudge = at - lastX < CROWDED_PX ? (nudge === -5 ? 5 : -5) : 0;
    lastX = at;
    return (
      `<circle class="signal" data-kind="${esc(s.kind)}" cx="${at.toFixed(1)}" cy="${mid + nudge}" r="4.5" fill="` +
      `${signalColour(s.kind)}" stroke="#fff" stroke-width="1"><title>` +
      `${esc(`${c.name}: ${signalWords(s)}, ${secondsText(s.at)}`)}</title></circle>`
    );
  });
  return (
    `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${mid}" y2="${mid}" stroke="#e5e7eb"/>` +
    `<text x="${PAD.left - 8}" y="${mid + 4}" text-anchor="end" font-size="12">${esc(c.name)}</text>` +
    bands.join('') +
    marks.join('')
  );
}

/** Every consumer's signals in words, for a reader who cannot hover (a printout); one that had none says so. */
function signalList(consumers: readonly SystemConsumer[]): string {
  const items = consumers.map((c) => {
    if (c.signals.length === 0) return `<li><b>${esc(c.name)}</b>: no signal</li>`;
    const named = c.signals.slice(0, LISTED).map((s) => `${esc(signalWords(s))} <b>${secondsText(s.at)}</b>`);
    const more = c.signals.length > LISTED ? ` · … ${c.signals.length - LISTED} more` : '';
    return `<li><b>${esc(c.name)}</b>: ${named.join(' · ')}${more}</li>`;
  });
  return `<ul class="marks">${items.join('')}</ul>`;
}

function legend(run: SystemRun, axis: TimeAxis): string {
  const kinds = [...new Set(run.consumers.flatMap((c) => c.signals.map((s) => s.kind)))].map(
    (kind) => `<span><i style="background:${signalColour(kind)}"></i>${esc(kind)}</span>`,
  );
  const stalls = axis.faults.map(
    (f) => `<span><i style="background:${FAULT_COLOURS.stall};opacity:.5"></i>${esc(f.label)}</span>`,
  );
  return (
    `<div class="legend" data-stalls="${axis.faults.length}">${[...stalls, ...kinds].join('')}` +
    `<span>dashed line: publishing ends</span></div>`
  );
}

/**
 * The run's timeline: a row per consumer, each signal it had marked where it came (its title the
 * library's words), the stall windows shaded behind every row (report/svg-time.ts, as our broker's
 * timeline) and the end of publishing as a dashed line.
 */
export function systemTimelineSvg(run: SystemRun, config: SystemRunConfig): string {
  const axis = systemAxis(run, config);
  // Room above the rows for each stall's label, stacked one per line by timeBackdrop.
  const top = 22 + Math.max(0, axis.faults.length - 1) * 11;
  const bottom = top + run.consumers.length * ROW;
  const H = bottom + PAD.bottom;
  const x = (t: number) => PAD.left + (t / axis.end) * (W - PAD.left - PAD.right);
  const frame = { x, top, bottom };
  const ends = x(config.publishEndsAt).toFixed(1);
  const publishing =
    `<line class="publishing-ends" x1="${ends}" x2="${ends}" y1="${top - 8}" y2="${bottom}" stroke="#6b7280" ` +
    `stroke-width="0.8" stroke-dasharray="3 3"><title>publishing ends at ${secondsText(config.publishEndsAt)}` +
    `</title></line>`;
  const svg =
    `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="Timeline">${timeBackdrop(axis, frame)}` +
    `${publishing}${timeTicksSvg(axis, frame, 'seconds since publishing started', (PAD.left + W - PAD.right) / 2)}` +
    `${run.consumers.map((c, r) => consumerRow(c, axis, r, top, x)).join('')}</svg>`;
  return (
    `<figure class="wide"><figcaption>Signals: what each consumer was told or noticed, when (hover a mark for the ` +
    `library's words)</figcaption>${svg}${legend(run, axis)}${signalList(run.consumers)}</figure>`
  );
}
