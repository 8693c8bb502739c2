import { Box, render, Text, useInput, type Instance } from 'ink';
import { createElement as h, useEffect, useState, type ReactElement } from 'react';
import { modeSpec, type Mode } from '@state-divergence/protocol';
import { crowded, someNames } from './crowd.js';
import { MODE_LABELS } from './labels.js';
import { appliedRange, foldLive, type LiveHealthy } from './live-fold.js';
import { staleWords } from './progress.js';
import type { PhaseName } from '../model/events.js';
import { faultWindows } from '../model/faults.js';
import { isLinkState, LINK_STATE, type ConsumerLive, type LiveSnapshot, type RunObserver } from '../model/live.js';

const SPARKS = '▁▂▃▄▅▆▇█';
const STATE_COLOUR: Record<ConsumerLive['state'], string> = {
  applying: 'white', STALLED: 'yellow', slowed: 'yellow', crashed: 'red', resyncing: 'cyan', ended: 'gray', PARTITIONED: 'red', 'lossy link': 'yellow', delayed: 'yellow',
};
const STATE_WIDTH = 13;
const BAR_WIDTH = 30;
const SPARK_WIDTH = 24;

const phaseColour = (phase: PhaseName): string => (phase === 'stalled' ? 'yellow' : phase === 'quiesced' ? 'magenta' : 'green');

export function sparkline(series: number[], width = SPARK_WIDTH): string {
  const tail = series.slice(-width);
  const max = Math.max(1, ...tail);
  return tail.map((v) => (v === 0 ? ' ' : SPARKS[Math.min(SPARKS.length - 1, Math.ceil((v / max) * SPARKS.length) - 1)])).join('');
}

function progressBar(seconds: number, total: number): string {
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round((seconds / total) * BAR_WIDTH)));
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

/**
 * How rows are laid out: the name column fits the longest name (12 as the seed had it, wider for
 * consumer-100 and up), and a crowded run's rows are one line each, cut at the terminal's edge
 * rather than wrapped, so its rows can be counted against the terminal's height (live-fold.ts);
 * their sparkline is half as long, so a row with its stale time (108 columns) fits 120.
 */
interface Layout {
  nameWidth: number;
  oneLine: boolean;
  sparkWidth: number;
}

/** A row of cells: side by side (wrapping inside a cell when the terminal is narrow), or one line cut at the edge. */
const row = (layout: Layout, ...cells: ReactElement[]): ReactElement => (layout.oneLine ? h(Text, { wrap: 'truncate-end' }, ...cells) : h(Box, null, ...cells));

/**
 * One consumer: diverged (its latest write was dropped: it will never arrive;
 * red) and behind (queued or in flight: it will; grey), both from the broker's
 * view, so a frozen consumer's diverged count climbs while it is stopped.
 */
function ConsumerRow({ c, keys, layout }: { c: ConsumerLive; keys: number; layout: Layout }): ReactElement {
  // Something is being done to it: yellow, red once it has diverged.
  const colour = c.diverged ? 'red' : c.state === 'STALLED' || c.state === 'slowed' || isLinkState(c.state) ? 'yellow' : 'green';
  const count = (n: number | null) => (n === null ? '?' : String(n)).padStart(5);
  return row(
    layout,
    h(Text, { color: colour }, `${c.name}${c.foreign ? '*' : ''}`.padEnd(layout.nameWidth)),
    h(Text, { color: STATE_COLOUR[c.state] }, c.state.padEnd(STATE_WIDTH)),
    h(Text, null, `applied ${String(c.applied).padStart(7)}   `),
    h(Text, { color: c.diverged ? 'red' : 'green' }, `diverged ${count(c.diverged)} / ${keys}  `),
    h(Text, { color: 'gray' }, `behind ${count(c.behind)}  `.padEnd(16)),
    h(Text, { color: 'red' }, sparkline(c.divergedSeries, layout.sparkWidth)),
    ...staleCell(c),
  );
}

/** A crowded run's consumers with nothing going on, as one row in the columns of theirs (live-fold.ts). */
function HealthyRow({ healthy, keys, layout }: { healthy: LiveHealthy; keys: number; layout: Layout }): ReactElement {
  // The most any of them is behind: "≤ 12" (none more), or just 0.
  const behind = (healthy.behindMax === null ? '?' : healthy.behindMax === 0 ? '0' : `≤ ${healthy.behindMax}`).padStart(5);
  return row(
    layout,
    h(Text, { color: 'green' }, `${healthy.count} healthy`.padEnd(layout.nameWidth)),
    h(Text, { color: STATE_COLOUR.applying }, 'applying'.padEnd(STATE_WIDTH)),
    h(Text, null, `applied ${appliedRange(healthy).padStart(7)}   `),
    h(Text, { color: 'green' }, `diverged ${'0'.padStart(5)} / ${keys}  `),
    h(Text, { color: 'gray' }, `behind ${behind}`),
  );
}

/** In a crowded run, the lists on one line (broker drops, faults) name this many, then say how many more: the line fits 120 columns. */
const LISTED = 2;

/** Its own stale signal (progress.ts' words): bold while it is stale now, dimmed after. */
function staleCell(c: ConsumerLive): ReactElement[] {
  const words = staleWords(c);
  return words === '' ? [] : [h(Text, c.staleness?.now ? { color: 'yellow', bold: true } : { dimColor: true }, `  ${words}`)];
}

/** The live view of one mode: pure, rendered from a snapshot (tested with ink-testing-library). */
export function Dashboard({ snapshot, phase }: { snapshot: LiveSnapshot | undefined; phase: { mode: Mode; phase: PhaseName; seconds: number } }): ReactElement {
  const s = snapshot;
  const many = crowded(s?.consumers.length ?? 0);
  const fold = foldLive(s?.consumers ?? []);
  const dropped = s?.consumers.filter((c) => c.dropped > 0) ?? [];
  const drops = someNames(dropped.map((c) => `${c.name} ${c.dropped}`), many ? LISTED : Infinity) || 'none';
  const faults = s === undefined ? [] : many ? s.faults.slice(0, LISTED) : s.faults;
  const moreFaults = s !== undefined && faults.length < s.faults.length ? ` and ${s.faults.length - faults.length} more` : '';
  const names = (s?.consumers ?? []).map((c) => c.name.length + (c.foreign ? 1 : 0));
  const layout: Layout = { nameWidth: Math.max(12, ...names.map((n) => n + 1)), oneLine: many, sparkWidth: many ? SPARK_WIDTH / 2 : SPARK_WIDTH };
  return h(
    Box,
    { flexDirection: 'column', paddingX: 1 },
    h(Text, { bold: true }, MODE_LABELS[phase.mode]),
    h(
      Box,
      null,
      h(Text, { color: phaseColour(phase.phase), bold: true }, phase.phase.padEnd(12)),
      h(Text, null, `${progressBar(s?.seconds ?? phase.seconds, s?.totalSeconds ?? 1)} ${(s?.seconds ?? phase.seconds).toFixed(1)}s / ${s?.totalSeconds ?? '?'}s`),
    ),
    h(Text, null, ' '),
    ...(fold.healthy === null ? [] : [h(HealthyRow, { key: 'healthy', healthy: fold.healthy, keys: s!.keys, layout })]),
    ...fold.shown.map((c) => h(ConsumerRow, { key: c.name, c, keys: s!.keys, layout })),
    ...(fold.hidden.length === 0 ? [] : [h(Text, { color: 'yellow', wrap: 'truncate-end' }, `+ ${fold.hidden.length} more faulted or off, no room for their rows: ${fold.hidden.map((c) => c.name).join(', ')}`)]),
    h(Text, null, ' '),
    row(
      layout,
      h(Text, null, `publisher  published ${s?.published ?? 0}   rate ${Math.round(s?.publisherRate ?? 0)}/s (last 2 s)${s?.publisherBacklog ? `   backlog ${s.publisherBacklog} keys held back` : ''}   ${s?.brokerDown ? 'broker DOWN (killed; restarting)' : `broker drops: ${drops}`}`),
      ...(s?.publisherLink ? [h(Text, { color: STATE_COLOUR[LINK_STATE[s.publisherLink]] }, `   link ${LINK_STATE[s.publisherLink]}`)] : []),
    ),
    ...(faults.length > 0 ? [h(Text, many ? { wrap: 'truncate-end' } : null, `faults: ${faultWindows(faults)}${moreFaults}`)] : []),
    h(Text, { dimColor: true }, `${s?.consumers.some((c) => c.foreign) ? '* a consumer someone else wrote   ' : ''}${modeSpec(phase.mode).silentLoss ? 'a consumer is never told it is wrong   ' : ''}[q] quit`),
  );
}

function App({ store, onQuit }: { store: TuiStore; onQuit: () => void }): ReactElement {
  const [state, setState] = useState(store.state);
  useEffect(() => store.subscribe(setState), [store]);
  useInput((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onQuit();
  });
  return h(Dashboard, state);
}

class TuiStore {
  state: { snapshot: LiveSnapshot | undefined; phase: { mode: Mode; phase: PhaseName; seconds: number } } = {
    snapshot: undefined,
    phase: { mode: 'lossy', phase: 'converged', seconds: 0 },
  };
  private listeners = new Set<(state: TuiStore['state']) => void>();
  update(patch: Partial<TuiStore['state']>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }
  subscribe(listener: (state: TuiStore['state']) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * The live terminal view (ink), refreshed twice a second. q, Esc and Ctrl-C
 * call onQuit: the run then ends the orderly way (children reaped), and
 * `close()` gives the terminal back before the report is printed.
 */
export function liveView(onQuit: () => void): RunObserver & { close(): void } {
  const store = new TuiStore();
  const instance: Instance = render(h(App, { store, onQuit }), { exitOnCtrlC: false, patchConsole: false });
  let closed = false;
  return {
    intervalMs: 500,
    phase: (mode, phase, seconds) => store.update({ phase: { mode, phase, seconds }, ...(phase === 'converged' ? { snapshot: undefined } : {}) }),
    tick: (snapshot) => store.update({ snapshot, phase: { mode: snapshot.mode, phase: snapshot.phase, seconds: snapshot.seconds } }),
    close: () => {
      if (closed) return;
      closed = true;
      instance.unmount();
      instance.cleanup();
    },
  };
}
