/** Small inline-SVG charts for the HTML report: no script, no network, nothing to load. */
import { esc } from './html-escape.js';
import { timeBackdrop, timeTicksSvg } from './svg-time.js';
import type { TimeAxis } from './time-axis.js';

const PALETTE = ['#0f766e', '#b91c1c', '#1d4ed8', '#a16207', '#7c3aed', '#be185d', '#15803d', '#c2410c'];
const W = 640;
const H = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };
/** A chart over time: room above for the phase names, below for the tick labels and the axis title. */
const TIME_PAD = { ...PAD, top: 22, bottom: 36 };

/** Grid lines and labels for y; for x, only the range in its title (a time axis gets real ticks instead). */
function axes(maxY: number, xLabel: string | null, maxX: number, pad: typeof PAD): string {
  const y0 = H - pad.bottom;
  const ticks = [0, 0.5, 1].map((f) => {
    const y = y0 - f * (y0 - pad.top);
    return (
      `<line x1="${pad.left}" x2="${W - pad.right}" y1="${y}" y2="${y}" stroke="#e5e7eb"/><text x="` +
      `${pad.left - 6}" y="${y + 4}" text-anchor="end">${Math.round(f * maxY)}</text>`
    );
  });
  return (
    ticks.join('') +
    (xLabel === null
      ? ''
      : `<text x="${W - pad.right}" y="${H - 6}" text-anchor="end">${esc(xLabel)} (0–${maxX})</text>`) +
    `<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${y0}" stroke="#9ca3af"/>`
  );
}

function legend(names: string[], colours: string[] = names.map((_, i) => PALETTE[i % PALETTE.length]!)): string {
  return (
    `<div class="legend">` +
    `${names.map((n, i) => `<span><i style="background:${colours[i]}"></i>${esc(n)}</span>`).join('')}</div>`
  );
}

/**
 * One line per series over shared x values (`xs[i]` is sample i's x, e.g. its
 * time); a null value is a gap (a consumer not yet started). `colours` fixes a
 * series' colour (else the palette's). Given a time axis, x is seconds since
 * publishing started over [0, axis.end], with tick labels, the fault windows
 * shaded and the phase boundaries drawn behind the lines.
 */
export function lineChart(
  title: string,
  series: Record<string, Array<number | null>>,
  xs: number[],
  xLabel: string,
  unit = '',
  colours: Record<string, string> = {},
  time?: TimeAxis,
): string {
  const names = Object.keys(series);
  const pad = time === undefined ? PAD : TIME_PAD;
  const colour = (name: string, k: number): string => colours[name] ?? PALETTE[k % PALETTE.length]!;
  const values = names.flatMap((n) => series[n]!).filter((v): v is number => v !== null);
  const maxY = Math.max(1, ...values);
  const [minX, maxX] =
    time === undefined ? [xs[0] ?? 0, Math.max(xs.at(-1) ?? 0, (xs[0] ?? 0) + 0.001)] : [0, time.end];
  const px = (value: number) => pad.left + ((value - minX) / (maxX - minX)) * (W - pad.left - pad.right);
  const x = (i: number) => px(xs[i] ?? minX);
  const y = (v: number) => H - pad.bottom - (v / maxY) * (H - pad.top - pad.bottom);
  const lines = names.map((n, k) => {
    const points = series[n]!.flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`]));
    return `<polyline fill="none" stroke="${colour(n, k)}" stroke-width="2" points="${points.join(' ')}"/>`;
  });
  const frame = { x: px, top: pad.top, bottom: H - pad.bottom };
  const behind = time === undefined ? '' : timeBackdrop(time, frame);
  const xAxis = time === undefined ? '' : timeTicksSvg(time, frame, xLabel, (pad.left + W - pad.right) / 2);
  return (
    `<figure><figcaption>${esc(title)}${unit ? ` (${esc(unit)})` : ''}</figcaption><svg viewBox="0 0 ${W} ${H}" ` +
    `role="img" aria-label="${esc(title)}">${behind}` +
    `${axes(maxY, time === undefined ? xLabel : null, Math.round(maxX * 10) / 10, pad)}${xAxis}${lines.join('')}` +
    `</svg>${legend(names, names.map(colour))}</figure>`
  );
}

/** Grouped bars: one group per category, one bar per series; no bar where a value is unknown (null). */
export function barChart(
  title: string,
  categories: string[],
  series: Record<string, Array<number | null>>,
  unit = '',
): string {
  const names = Object.keys(series);
  const maxY = Math.max(0.0001, ...names.flatMap((n) => series[n]!.filter((v): v is number => v !== null)));
  const group = (W - PAD.left - PAD.right) / categories.length;
  const bar = Math.max(2, (group - 6) / Math.max(1, names.length));
  const y0 = H - PAD.bottom;
  const bars = categories.flatMap((cat, c) =>
    names.map((n, k) => {
      const v = series[n]![c] ?? null;
      if (v === null) return '';
      const height = (v / maxY) * (y0 - PAD.top);
      return (
        `<rect x="${(PAD.left + c * group + 3 + k * bar).toFixed(1)}" y="${(y0 - height).toFixed(1)}" width="` +
        `${bar.toFixed(1)}" height="${height.toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"><title>${esc(n)} ` +
        `${esc(cat)}: ${v}</title></rect>`
      );
    }),
  );
  const labels = categories.map(
    (cat, c) =>
      `<text x="${(PAD.left + c * group + group / 2).toFixed(1)}" y="${H - 14}" text-anchor="middle">` +
      `${esc(cat)}</text>`,
  );
  const yTicks = [0, 0.5, 1].map(
    (f) =>
      `<text x="${PAD.left - 6}" y="${(y0 - f * (y0 - PAD.top) + 4).toFixed(1)}" text-anchor="end">` +
      `${Math.round(f * maxY * 100) / 100}</text>`,
  );
  return (
    `<figure><figcaption>${esc(title)}${unit ? ` (${esc(unit)})` : ''}</figcaption><svg viewBox="0 0 ${W} ${H}" ` +
    `role="img" aria-label="${esc(title)}">${yTicks.join('')}<line x1="${PAD.left}" x2="${W - PAD.right}" y1="` +
    `${y0}" y2="${y0}" stroke="#9ca3af"/>${bars.join('')}${labels.join('')}</svg>${legend(names)}</figure>`
  );
}

export { esc };
