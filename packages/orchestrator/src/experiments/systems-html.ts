import { esc } from '../report/svg-charts.js';
import type { SystemsEdge, SystemsPoint } from './systems-points.js';
import type { SystemsSection } from './systems-text.js';
import { edgeText } from './systems-text.js';

const CELL = { width: 92, height: 34 };
const LEFT = 150;
const TOP = 40;
const COLOUR = { correct: '#16a34a', wrong: '#dc2626', catchingUp: '#b45309' };

const cellText = (p: SystemsPoint) =>
  p.wrong > 0 ? `wrong ${p.wrong}` : p.catchingUp > 0 ? `catching up ${p.catchingUp}` : 'correct';

/** One row of the frontier: an idiom at a rate, a cell per stall, coloured by how the stalled consumer ended. */
function row(points: SystemsPoint[], stalls: number[], y: number, label: string): string {
  const cells = stalls.map((stall, i) => {
    const p = points.find((q) => q.stallSeconds === stall);
    const x = LEFT + i * CELL.width;
    if (p === undefined) return '';
    const title = `${label}, ${stall} s: ${cellText(p)} (expected ${p.expectedWrong}); signals ${p.signals}`;
    const fill = p.wrong > 0 ? COLOUR.wrong : p.catchingUp > 0 ? COLOUR.catchingUp : COLOUR.correct;
    const dashed = p.role === 'edge' ? ' stroke="#111" stroke-dasharray="3 2"' : '';
    const middle = { x: x + (CELL.width - 4) / 2, y: y + CELL.height / 2 + 1 };
    return (
      `<rect x="${x}" y="${y}" width="${CELL.width - 4}" height="${CELL.height - 4}" rx="3" fill="${fill}"${dashed}>` +
      `<title>${esc(title)}</title></rect>` +
      `<text x="${middle.x}" y="${middle.y}" text-anchor="middle" fill="#fff">${esc(cellText(p))}</text>`
    );
  });
  return `<text x="${LEFT - 8}" y="${y + CELL.height / 2 + 1}" text-anchor="end">${esc(label)}</text>${cells.join('')}`;
}

/**
 * One system's frontier: a row per idiom × rate, a column per stall (the grid's and the
 * bisection's, a dashed border), each cell green when the stalled consumer ended correct, red
 * when wrong; under it the edge and the limit that decides it, in the system's own words.
 */
export function systemFrontierChart(system: string, points: SystemsPoint[], edge: SystemsEdge | undefined): string {
  const mine = points.filter((p) => p.system === system);
  const stalls = [...new Set(mine.map((p) => p.stallSeconds))].sort((a, b) => a - b);
  const rows = [...new Set(mine.map((p) => `${p.idiom}|${p.rate}`))];
  const height = TOP + rows.length * CELL.height + 50;
  const width = LEFT + stalls.length * CELL.width + 20;
  const header = stalls
    .map(
      (s, i) =>
        `<text x="${LEFT + i * CELL.width + (CELL.width - 4) / 2}" y="${TOP - 10}" text-anchor="middle">${s} s</text>`,
    )
    .join('');
  const body = rows
    .map((key, i) => {
      const [idiom, rate] = key.split('|') as [string, string];
      const cells = mine.filter((p) => p.idiom === idiom && String(p.rate) === rate);
      return row(cells, stalls, TOP + i * CELL.height, `${idiom} at ${rate}/s`);
    })
    .join('');
  const limit = edge?.prediction?.limit ?? 'no limit declared';
  const foot = TOP + rows.length * CELL.height + 18;
  const edgeLine =
    edge === undefined ? '' : `naive's edge at ${edge.rate}/s: ${edgeText(edge)}. Deciding limit: ${limit}`;
  return (
    `<figure><figcaption>${esc(system)}: the frontier, stall (s) × idiom and rate; green correct, red wrong ` +
    `(dashed: a bisection run)</figcaption><svg viewBox="0 0 ${Math.max(width, 700)} ${height}" role="img">` +
    `${header}${body}<text x="${LEFT}" y="${foot}">${esc(edgeLine)}</text></svg></figure>`
  );
}

/** A frontier chart per system, in the points' order. */
export function systemsCharts(section: SystemsSection): string[] {
  const systems = [...new Set(section.points.map((p) => p.system))];
  return systems.map((s) =>
    systemFrontierChart(
      s,
      section.points,
      section.edges.find((e) => e.system === s),
    ),
  );
}
