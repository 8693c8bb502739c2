import { esc } from './html-escape.js';
import { FAULT_COLOURS, secondsText, timeTicks, type TimeAxis } from './time-axis.js';

/** Where a time drawing's plot area is: `x` maps seconds since publishing started to px. */
export interface TimeFrame {
  x: (t: number) => number;
  top: number;
  bottom: number;
}

/**
 * What goes behind every series on a time axis: one shaded band per fault in
 * its kind's colour, labelled with its consumer (labels stacked, one line per
 * fault, so overlapping windows stay readable), and each phase boundary as a
 * thin dashed line named at its top. Each has a <title> for hovering.
 */
export function timeBackdrop(axis: TimeAxis, frame: TimeFrame): string {
  const { x, top, bottom } = frame;
  const bands = axis.faults.map((f, i) => {
    const [from, to] = [x(f.from), x(Math.min(f.to, axis.end))];
    return (
      `<rect class="fault-band" data-fault="${f.kind}" data-consumer="${esc(f.consumer)}" x="${from.toFixed(1)}` +
      `" y="${top}" width="${Math.max(1, to - from).toFixed(1)}" height="${bottom - top}" fill="` +
      `${FAULT_COLOURS[f.kind]}" fill-opacity="0.16"><title>${esc(f.label)}</title></rect>` +
      (`<text x="${(from + 3).toFixed(1)}" y="${top + 11 + i * 11}" font-size="10" fill="` +
        `${FAULT_COLOURS[f.kind]}" style="fill:${FAULT_COLOURS[f.kind]}">${esc(f.consumer)}</text>`)
    );
  });
  const phases = axis.phases.map((p) => {
    const at = x(p.t).toFixed(1);
    return (
      `<line class="phase-line" x1="${at}" x2="${at}" y1="${top - 8}" y2="${bottom}" stroke="#6b7280" ` +
      `stroke-width="0.8" stroke-dasharray="3 3"><title>${p.phase} from ${secondsText(p.t)}</title></line><text ` +
      `x="${(x(p.t) + 2).toFixed(1)}" y="${top - 2}" font-size="9">${p.phase}</text>`
    );
  });
  return bands.join('') + phases.join('');
}

/** The time axis itself: a tick and its label in seconds at each round value, the axis title under them. */
export function timeTicksSvg(axis: TimeAxis, frame: TimeFrame, title: string, titleX: number): string {
  const ticks = timeTicks(axis.end).map((t) => {
    const at = frame.x(t).toFixed(1);
    return (
      `<line x1="${at}" x2="${at}" y1="${frame.bottom}" y2="${frame.bottom + 4}" stroke="#9ca3af"/><text x="${at}` +
      `" y="${frame.bottom + 15}" text-anchor="middle">${t}</text>`
    );
  });
  return `${ticks.join('')}<text x="${titleX}" y="${frame.bottom + 28}" text-anchor="middle">${esc(title)}</text>`;
}
