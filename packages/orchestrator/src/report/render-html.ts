import { describeFault, faultLabel } from '../model/faults.js';
import { absorptionSentence } from './absorption.js';
import { costNotes, costRows } from './cost-table.js';
import {
  alikeWords,
  crowded,
  foldConsumers,
  groupAlike,
  healthyLines,
  someNames,
  summariseHealthy,
  type Fold,
} from './crowd.js';
import { decileSeries, divergenceGroups, envelope, NAMED_QUIET, timelineMerges } from './crowd-chart.js';
import type { JsonConfig, JsonDocument, JsonRun } from './document.js';
import { MODE_LABELS, MODE_SHORT } from './labels.js';
import { linkLines, publisherNetworkLines } from './network-text.js';
import { duration } from './units.js';
import { barChart, esc, lineChart } from './svg-charts.js';
import { timelineSvg } from './svg-timeline.js';
import { brokerLines } from './restart-text.js';
import { FAULT_COLOURS, timeAxis, type TimeAxis } from './time-axis.js';
import { timelineRows } from './timeline-rows.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1400px;color:#111827;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2.2rem;border-bottom:1px solid #e5e7eb}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:1rem}
figure{margin:0;padding:.6rem;border:1px solid #e5e7eb;border-radius:6px}figcaption{font-weight:600;margin-bottom:.3rem}
svg{width:100%;height:auto;font-size:11px;fill:#374151}.legend span{margin-right:1rem;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;margin:.6rem 0}
td,th{border:1px solid #e5e7eb;padding:.25rem .6rem;text-align:right}th{background:#f9fafb}
td:first-child,th:first-child{text-align:left}.bad{color:#b91c1c;font-weight:600}.ok{color:#0f766e;font-weight:600}
.warn{color:#b45309;font-weight:600}
.wide{margin-top:1rem}ul.marks{font-size:12px;margin:.4rem 0 0;padding-left:1.2rem;color:#374151}`;
/** The page's stylesheet, inline: a real system's page (systems-run/system-html.ts) is styled the same. */
export { STYLE };

/** The cost table's rows (cost-table.ts), the modes side by side as in the text. */
function costTable(runs: JsonRun[]): string {
  const head = `<tr><th></th>${runs.map((r) => `<th>${esc(MODE_SHORT[r.mode])}</th>`).join('')}</tr>`;
  const rows = costRows(runs).map((row) => {
    const cells = row.cells.map((cell) =>
      row.wrong ? `<td class="${cell === '0' ? 'ok' : 'bad'}">${cell}</td>` : `<td>${esc(cell)}</td>`,
    );
    return `<tr><td>${esc(row.label)}</td>${cells.join('')}</tr>`;
  });
  const notes = costNotes(runs).map((note) => `<p><small>${esc(note)}</small></p>`);
  return `<table class="cost">${head}${rows.join('')}</table>${notes.join('')}`;
}

type Consumer = JsonRun['consumers'][number];

/** Its name, its faults, and for a consumer someone else wrote the command it ran as. */
function nameCell(c: Consumer, config: JsonConfig): string {
  const faults = c.faults.length > 0 ? ` (${esc(c.faults.map((f) => faultLabel(f, config.duration)).join(', '))})` : '';
  return `${esc(c.name)}${faults}${c.command === null ? '' : `<br><small>foreign: ${esc(c.command)}</small>`}`;
}

function stateCell(c: Consumer, keys: number): string {
  if (c.verdict === 'unknown') return '<td class="bad">unknown</td>';
  return c.wrongCount > 0 ? `<td class="bad">${c.wrongCount} of ${keys} wrong</td>` : '<td class="ok">correct</td>';
}

/** Its stale time, where any consumer of the run tracks it (a mode whose broker speaks when idle): '-' where it does
 * not. */
const staleCell = (c: Consumer): string =>
  `<td>${c.staleMs === null ? '-' : c.staleMs === 0 ? 'never' : duration(c.staleMs)}</td>`;

function consumerTable(run: JsonRun, config: JsonConfig, fold: Fold): string {
  const tracks = run.consumers.some((c) => c.staleMs !== null);
  const columns = tracks ? 5 : 4;
  const rows = (consumers: Consumer[]) =>
    consumers.map((c) => {
      const row =
        `<tr><td>${nameCell(c, config)}</td><td>${c.applied ?? '?'}</td>${stateCell(c, config.keys)}` +
        `${tracks ? staleCell(c) : ''}<td>${c.digestMatch === null ? '-' : c.digestMatch ? 'matches' : 'differs'}` +
        `</td><td>${esc(c.wrongKeys.slice(0, 6).join(', '))}${c.wrongKeys.length > 6 ? ', …' : ''}</td></tr>`;
      // What its relay and QUIC did under a network fault, then every way a foreign consumer broke the child contract
      // (docs/CONSUMER.md), each on its own line.
      const link = linkLines(c, run).map(
        (line) => `<tr><td></td><td colspan="${columns}"><small>${esc(line)}</small></td></tr>`,
      );
      const breaches = c.contract.map(
        (failure) => `<tr><td></td><td colspan="${columns}" class="bad">contract failure: ${esc(failure)}</td></tr>`,
      );
      return row + link.join('') + breaches.join('');
    });
  const stale = tracks
    ? '<th title="time with no frame from the broker for longer than --stale-after, by its own clock">stale</th>'
    : '';
  const head =
    `<tr><th>consumer</th><th>applied</th><th>state at the end</th>${stale}<th>digest</th><th>first wrong ` +
    `keys</th></tr>`;
  if (!crowded(run.consumers.length)) return `<table>${head}${rows(fold.shown).join('')}</table>`;
  // Rows that read the same but for the name as one, naming the others (crowd.ts groupAlike); its faults and command,
  // in the name's cell, count.
  const unnamed = (c: Consumer) =>
    rows([c])[0]!.replace(`<td>${nameCell(c, config)}</td>`, `<td>${nameCell({ ...c, name: '' }, config)}</td>`);
  const alike = groupAlike(fold.shown, unnamed).map(({ first, others }) =>
    others.length === 0
      ? rows([first])[0]!
      : rows([first])[0]!.replace(
          `${nameCell(first, config)}</td>`,
          `${nameCell(first, config)}<br><small>${esc(alikeWords(others))}</small></td>`,
        ),
  );
  const table = `<table>${head}${alike.join('')}</table>`;
  // A crowded run (crowd.ts): the healthy ones summed up first, listed one by one only when asked.
  const [first, ...rest] = healthyLines(summariseHealthy(fold));
  const summary =
    first === undefined
      ? ''
      : `<p class="healthy"><span class="ok">${esc(first)}</span>` +
        `${rest.map((line) => `<br>${esc(line)}`).join('')}</p>`;
  const folded =
    fold.folded.length === 0
      ? ''
      : `<details><summary>The ${fold.folded.length} healthy consumers not listed, one by one</summary><table>` +
        `${head}${rows(fold.folded).join('')}</table></details>`;
  return `${summary}${table}${folded}`;
}

const RED = ['#b91c1c', '#ef4444', '#7f1d1d', '#f87171'];
const GREY = ['#6b7280', '#9ca3af', '#374151', '#d1d5db'];

/**
 * Per consumer that was ever off: diverged (red: its latest write was dropped,
 * it will never arrive) and behind (grey: queued or in flight, it will). Changes
 * flow control held back at the publisher count for neither. A crowded run draws
 * a few listed consumers on their own and the rest as envelopes (crowd-chart.ts).
 */
function divergenceChart(run: JsonRun, axis: TimeAxis, fold: Fold): string {
  const { diverged, behind } = run.wrongOverTime;
  const series: Record<string, Array<number | null>> = {};
  const colours: Record<string, string> = {};
  const everOff = (name: string) =>
    [...(diverged[name] ?? []), ...(behind[name] ?? [])].some((v) => v !== null && v > 0);
  const many = crowded(run.consumers.length);
  const groups = many
    ? divergenceGroups(run, fold, everOff)
    : { alone: Object.keys(diverged).filter(everOff), envelopes: [] };
  groups.alone.forEach((name, i) => {
    series[`${name} diverged`] = diverged[name] ?? [];
    series[`${name} behind`] = behind[name] ?? [];
    colours[`${name} diverged`] = RED[i % RED.length]!;
    colours[`${name} behind`] = GREY[i % GREY.length]!;
  });
  // An envelope's line that stays at 0 says nothing the title does not.
  for (const e of groups.envelopes) {
    const lines: Array<[string, Array<number | null>, string]> = [
      [`${e.label}: most diverged`, envelope(e.names, diverged), e.colours[0]],
      [`${e.label}: most behind`, envelope(e.names, behind), e.colours[1]],
    ];
    for (const [label, values, colour] of lines.filter(([, values]) => values.some((v) => v !== null && v > 0))) {
      series[label] = values;
      colours[label] = colour;
    }
  }
  const quiet = Object.keys(diverged).filter((name) => !everOff(name));
  const title =
    `Keys diverged (red) and behind (grey) over time` +
    `${quiet.length > 0 ? `; 0 throughout: ${someNames(quiet, many ? NAMED_QUIET : Infinity)}` : ''}`;
  return lineChart(title, series, run.wrongOverTime.t, 'seconds since publishing started', 'keys', colours, axis);
}

/** What the shading on the time charts means: each fault in its kind's colour, and the phase lines. */
function faultLegend(axis: TimeAxis): string {
  const faults = axis.faults.map(
    (f) => `<span><i style="background:${FAULT_COLOURS[f.kind]};opacity:.5"></i>${esc(f.label)}</span>`,
  );
  return (
    `<div class="legend" data-faults="${axis.faults.length}">Shaded on every time chart: ${faults.join('')}` +
    `<span>dashed lines: phase boundaries</span></div>`
  );
}

function modeSection(run: JsonRun, config: JsonConfig): string {
  const axis = timeAxis(run, config);
  const fold = foldConsumers(run, config);
  const deciles = decileSeries(run);
  const charts = [
    divergenceChart(run, axis, fold),
    lineChart(
      'Publisher rate over time',
      { publisher: run.wrongOverTime.publisherRate },
      run.wrongOverTime.t,
      'seconds since publishing started',
      'changes/s, last 2 s',
      {},
      axis,
    ),
    Object.keys(deciles).length > 0
      ? barChart(
          'Wrong keys by key rank (hottest tenth first)',
          ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th', '9th', '10th'],
          deciles,
          'fraction of the tenth',
        )
      : '<figure><figcaption>Wrong keys by key rank</figcaption><p class="ok">No consumer ended wrong.</p></figure>',
  ];
  const verdict = `<span class="${run.valid === 'valid' ? 'ok' : 'bad'}">${run.valid}</span>`;
  const rates = `${Math.round(run.publisher.achievedRate)}/s overall, ${Math.round(run.publisher.rateInStall)}/s`;
  return `<h2>${esc(MODE_LABELS[run.mode])}: ${verdict}</h2>
<p>${run.published} changes published; publisher ${rates} during the stall.</p>
${[...brokerLines(run), ...publisherNetworkLines(run, config)]
  .map((line) => `<p class="broker">${esc(line.trim())}</p>`)
  .join('\n')}
${(run.transport?.absorbed ?? [])
  .map((a) => `<p>${esc(a.consumer)}: ${esc(absorptionSentence(a, run.transport.datagramBytes))}.</p>`)
  .join('\n')}
${consumerTable(run, config, fold)}${faultLegend(axis)}<div class="grid">${charts.join('')}</div>
${timelineSvg(timelineRows(run, axis, timelineMerges(run, fold)), axis)}`;
}

/** One self-contained HTML file (inline CSS and SVG; no script, no network) from the --json document. */
export function renderHtml(document: JsonDocument): string {
  const { config, runs } = document;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence report</title>` +
    `<style>${STYLE}</style></head><body>
<h1>state-divergence: ${runs.map((r) => MODE_SHORT[r.mode]).join(', ')}</h1>
<p>${config.consumers} consumers (faults${
      config.nemesis ? `, drawn by --nemesis random from seed ${config.nemesis.seed}` : ''
    }: ${esc(config.faults.map(describeFault).join(' '))}), ${config.keys} keys, ${config.rate} changes/s, ` +
    `${config.duration} s per phase, seed ${config.seed}${
      config.datagramSize === undefined ? '' : `, ${config.datagramSize}-byte QUIC datagrams`
    }.</p>
<h2>What each column cost</h2>${costTable(runs)}
${runs.map((r) => modeSection(r, config)).join('\n')}
</body></html>
`
  );
}
