import { esc } from '../report/html-escape.js';
import { STYLE } from '../report/render-html.js';
import type { SystemConsumer, SystemRun, SystemRunConfig, SystemRunDocument } from './system-document.js';
import { systemTimelineSvg } from './system-timeline.js';
import {
  catchingUpText,
  compactionText,
  drainText,
  faultText,
  heldWhere,
  keysBehind,
  latencyText,
  serverLines,
  systemTableHeader,
  systemTableRows,
  wrongCount,
} from './system-text.js';

/** Of a consumer's unexplained keys, the table names this many, then counts the rest. */
const NAMED_UNEXPLAINED = 5;
/** Of a consumer's wrong keys, the table names this many. */
const NAMED_WRONG = 6;

/**
 * The run in a few words, as its heading says it: every consumer correct, or keys wrong and whether all
 * explained; a consumer still catching up at the drain's end said apart, never counted as wrong.
 */
function verdict(run: SystemRun): string {
  const [wrong, behind] = [wrongCount(run), keysBehind(run)];
  const catching = behind > 0 ? ` <span class="warn">(${behind} keys behind, still catching up)</span>` : '';
  if (run.unexplained > 0)
    return `<span class="bad">${wrong} keys wrong, ${run.unexplained} unexplained</span>${catching}`;
  if (wrong > 0) return `<span class="bad">${wrong} keys wrong, every one explained</span>${catching}`;
  if (behind > 0) return `<span class="warn">no key judged wrong: ${behind} keys behind, still catching up</span>`;
  return '<span class="ok">every consumer correct</span>';
}

function stateCell(c: SystemConsumer, keys: number): string {
  if (c.state === 'correct') return '<td class="ok">correct</td>';
  if (c.state === 'catching-up')
    return `<td class="warn">${c.wrongKeys.length} of ${keys} keys behind, ${esc(catchingUpText(c))}</td>`;
  return `<td class="bad">${c.wrongKeys.length} of ${keys} keys wrong</td>`;
}

function unexplainedCell(c: SystemConsumer): string {
  if (c.unexplained.length === 0) return '<td>0</td>';
  const named = c.unexplained.slice(0, NAMED_UNEXPLAINED).map((u) => `<br><small>${esc(u.key)}: ${esc(u.why)}</small>`);
  const more =
    c.unexplained.length > NAMED_UNEXPLAINED
      ? `<br><small>and ${c.unexplained.length - NAMED_UNEXPLAINED} more</small>`
      : '';
  return `<td class="bad">${c.unexplained.length}${named.join('')}${more}</td>`;
}

function consumerTable(run: SystemRun, config: SystemRunConfig): string {
  const head =
    '<tr><th>consumer</th><th>applied</th><th>relists</th><th>state at the end</th><th>explained</th>' +
    '<th>unexplained</th><th>out of order</th><th>signals</th><th>first wrong keys</th></tr>';
  const rows = run.consumers.map((c) => {
    const explained = c.explained.map((e) => `${e.keys} keys: ${esc(e.evidence)}`).join('<br>') || '-';
    const wrong = c.wrongKeys.slice(0, NAMED_WRONG).join(', ') + (c.wrongKeys.length > NAMED_WRONG ? ', …' : '');
    return (
      `<tr data-consumer="${esc(c.name)}"><td>${esc(c.name)}${c.stalled ? ' (stalled)' : ''}</td>` +
      `<td>${c.applied}</td><td>${c.relists}</td>${stateCell(c, config.keys)}<td>${explained}</td>` +
      `${unexplainedCell(c)}<td${c.outOfOrder > 0 ? ' class="bad"' : ''}>${c.outOfOrder}</td>` +
      `<td>${c.signals.length}</td><td>${esc(wrong)}</td></tr>`
    );
  });
  return `<table class="consumers">${head}${rows.join('')}</table>`;
}

function stallTable(run: SystemRun, config: SystemRunConfig): string {
  if (run.stalls.length === 0) return '';
  const head =
    '<tr><th>stalled consumer</th><th>window</th><th>acknowledged in it</th><th>publisher rate</th>' +
    '<th>where the stall was held</th></tr>';
  const rows = run.stalls.map(
    (s) =>
      `<tr class="stall"><td>${esc(s.consumer)}</td><td>${s.from}-${s.to} s</td><td>${s.acknowledged}</td>` +
      `<td>${s.ratePerSec}/s</td><td>${esc(heldWhere(s, config.payload))}</td></tr>`,
  );
  return `<table class="stalls">${head}${rows.join('')}</table>`;
}

/** The server's own counters before publishing and at the end, each with its change. */
function counterTable(run: SystemRun): string {
  const { before, after } = run.counters;
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (names.length === 0) return '<p>The server gave no counters.</p>';
  const cell = (n: number | undefined) => `<td>${n === undefined ? '-' : n.toLocaleString('en-US')}</td>`;
  const rows = names.map((name) => {
    const [was, is] = [before[name], after[name]];
    const change = was === undefined || is === undefined ? undefined : is - was;
    return `<tr><td>${esc(name)}</td>${cell(was)}${cell(is)}${cell(change)}</tr>`;
  });
  return (
    '<table class="counters"><tr><th>server counter</th><th>before publishing</th><th>at the end</th>' +
    `<th>change</th></tr>${rows.join('')}</table>`
  );
}

function knobLine(run: SystemRun): string {
  const knobs = Object.entries(run.knobs);
  if (knobs.length === 0) return '';
  return `<p class="knobs">Knobs: ${knobs.map(([name, value]) => `${esc(name)} <b>${esc(value)}</b>`).join(', ')}.</p>`;
}

/**
 * What was done to the run: its faults, its compactions, the server's crashes (what failed, what the
 * restarted server lost), and whose server it was: the same words as the text report's.
 */
function faultList(run: SystemRun): string {
  const items = [
    ...(run.endpoint === null ? [] : [`against ${run.endpoint}: a server the run did not start, left as it was`]),
    `faults: ${run.faults.map(faultText).join('; ')}`,
    ...run.compactions.map(compactionText),
    ...serverLines(run.server),
  ].map((line) => `<li>${esc(line.trim())}</li>`);
  return `<ul class="faults">${items.join('')}</ul>`;
}

function runSection(run: SystemRun, config: SystemRunConfig): string {
  const heading = `${esc(run.system)} (${esc(run.idiom)}): ${verdict(run)}`;
  const counts =
    `${run.published} changes published, ${run.acknowledged} acknowledged by the system; ` +
    `${run.authorityKeys} keys live at the end (the run's namespace: ${esc(run.prefix)}); the healthy consumers' ` +
    `publish-to-apply latency${run.stalls.length > 0 ? ' during the stall' : ''}: ` +
    `${latencyText(run.healthyLatency)}; the ${esc(drainText(run.drain))}`;
  return [
    `<h2 data-run="${esc(run.system)} ${esc(run.idiom)}">${heading}</h2>`,
    `<p>${counts}.</p>`,
    knobLine(run) + faultList(run) + consumerTable(run, config) + stallTable(run, config),
    systemTimelineSvg(run, config),
    counterTable(run),
  ].join('\n');
}

/** `--system all`'s closing table: system × idiom, as the text's. */
function closingTable(runs: readonly SystemRun[], config: SystemRunConfig): string {
  const head = `<tr>${systemTableHeader(runs)
    .map((h) => `<th>${esc(h)}</th>`)
    .join('')}</tr>`;
  const rows = systemTableRows(runs, config).map((cells, i) => {
    const wrong = wrongCount(runs[i]!) > 0;
    // The keys-wrong cell (the third) coloured as the text's verdict: red when any key ended wrong.
    const td = (cell: string, c: number) => `<td${c === 2 ? ` class="${wrong ? 'bad' : 'ok'}"` : ''}>${esc(cell)}</td>`;
    return `<tr>${cells.map(td).join('')}</tr>`;
  });
  return `<h2>Every system</h2><table class="closing">${head}${rows.join('')}</table>`;
}

/** What ran: `redis-streams (naive)`, or for `--system all` its systems × its idioms. */
function title(runs: readonly SystemRun[]): string {
  if (runs.length === 1) return `${runs[0]!.system} (${runs[0]!.idiom})`;
  const [systems, idioms] = [new Set(runs.map((r) => r.system)), new Set(runs.map((r) => r.idiom))];
  return `${[...systems].join(', ')} × ${[...idioms].join(', ')}`;
}

/**
 * One self-contained HTML file (inline CSS and SVG; no script, no network) for `--system NAME`,
 * drawn from its --json document alone, so a saved document renders the same page: per run its
 * consumers' verdicts and the evidence, the stalls and where they were held, the signals on a time
 * axis with the stall windows shaded, the server's counters; with several runs the closing table first.
 */
export function renderSystemHtml(document: SystemRunDocument): string {
  const { config, runs } = document;
  const skipped = document.skipped.map((line) => `<p><small>skipped: ${esc(line)}</small></p>`).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>state-divergence: real systems</title>` +
    `<style>${STYLE}</style></head><body>
<h1>state-divergence: ${esc(title(runs))}</h1>
<p>${config.consumers} consumers, ${config.keys} keys, ${config.rate} changes/s of ${config.payload}-byte values ` +
    `(${Math.round(config.deleteRatio * 1000) / 10} % deletes), seed ${config.seed}, ${config.duration} s per ` +
    `phase; publishing ended at ${config.publishEndsAt} s.</p>${skipped}
${runs.length > 1 ? closingTable(runs, config) : ''}
${runs.map((run) => runSection(run, config)).join('\n')}
</body></html>
`
  );
}
