import { Box, render, Text, useInput, useStdout, type Instance } from 'ink';
import { createElement as h, useEffect, useState, type ReactElement } from 'react';
import { modeSpec, type Mode } from '@state-divergence/protocol';
import { crowded, someNames } from './crowd.js';
import { MODE_LABELS } from './labels.js';
import { appliedRange, foldLive, liveRowsFor, type LiveHealthy } from './live-fold.js';
import { staleWords } from './progress.js';
import type { PhaseName } from '../model/events.js';
import { faultWindows } from '../model/faults.js';
import { isLinkState, LINK_STATE, type ConsumerLive, type LiveSnapshot, type RunObserver } from '../model/live.js';

const SPARKS = '▁▂▃▄▅▆▇█';
const STATE_COLOUR: Record<ConsumerLive['state'], string> = {
  applying: 'white',
  STALLED: 'yellow',
  slowed: 'yellow',
  crashed: 'red',
  resyncing: 'cyan',
  ended: 'gray',
  PARTITIONED: 'red',
  'lossy link': 'yellow',
  delayed: 'yellow',
  capped: 'yellow',
};
const STATE_WIDTH = 13;
const BAR_WIDTH = 30;
const SPARK_WIDTH = 24;

const phaseColour = (phase: PhaseName): string =>
  phase === 'stalled' ? 'yellow' : phase === 'quiesced' ? 'magenta' : 'green';

export function sparkline(series: number[], width = SPARK_WIDTH): string {
  const tail = series.slice(-width);
  const max = Math.max(1, ...tail);
  return tail
    .map((v) => (v === 0 ? ' ' : SPARKS[Math.min(SPARKS.length - 1, Math.ceil((v / max) * SPARKS.length) - 1)]))
    .join('');
}

function progressBar(seconds: number, total: number): string {
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round((seconds / total) * BAR_WIDTH)));
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

/** The terminal the view is drawn on (process.stdout's; the tests give 80×24 and 120×40). */
export interface TerminalSize {
  columns: number;
  rows: number;
}
const DEFAULT_SIZE: TerminalSize = { columns: 120, rows: 40 };
/** A row's stale cell ("  STALE 12.3 s"): room kept for it when any consumer tracks staleness. */
const STALE_CELL = 14;
/** A sparkline shorter than this says nothing: the room goes to the cells before it. */
const MIN_SPARK = 6;

/**
 * How rows are laid out for the terminal's width. Every consumer row is one line, cut at the
 * terminal's edge rather than wrapped: a row whose cells wrapped inside a box of cells overlapped
 * the next one at 80 columns ("consumer-1applying applied 2380diverged 0 / 200behind 9"), and rows
 * that are one line each can be counted against the terminal's height. Wide (the whole row fits):
 * the name column fits the longest name (12 as the seed had it), cells 2-3 apart, the sparkline
 * after them (half as long in a crowded run). Narrow (under WIDE columns, 80 among them): columns
 * as wide as their longest entry, one space apart, the keyspace said once in the title instead of
 * on every row, and the sparkline gets what is left (none under MIN_SPARK).
 */
interface Layout {
  nameWidth: number;
  stateWidth: number;
  /** Spaces after a count. */
  gap: number;
  /** " / 2000" after each diverged count (wide only). */
  keysOnRows: boolean;
  sparkWidth: number;
}

function layoutFor(
  size: TerminalSize,
  consumers: ConsumerLive[],
  healthy: LiveHealthy | null,
  keys: number,
  many: boolean,
): Layout {
  const names = [
    ...consumers.map((c) => c.name.length + (c.foreign ? 1 : 0)),
    ...(healthy === null ? [] : [`${healthy.count} healthy`.length]),
  ];
  const staleRoom = consumers.some((c) => c.staleness !== null) ? STALE_CELL : 0;
  const room = size.columns - 2; // the view's paddingX
  const cells = (l: Omit<Layout, 'sparkWidth'>) =>
    l.nameWidth +
    l.stateWidth +
    ('applied '.length + 7 + l.gap) +
    ('diverged '.length + 5 + (l.keysOnRows ? ` / ${keys}`.length : 0) + l.gap) +
    ('behind '.length + 5 + l.gap);
  const maxSpark = many ? SPARK_WIDTH / 2 : SPARK_WIDTH;
  const wide = {
    nameWidth: Math.max(12, ...names.map((n) => n + 1)),
    stateWidth: STATE_WIDTH,
    gap: 3,
    keysOnRows: true,
  };
  if (cells(wide) + maxSpark <= room) {
    return { ...wide, sparkWidth: Math.max(0, Math.min(maxSpark, room - cells(wide) - staleRoom)) };
  }
  const states = consumers.map((c) => c.state.length);
  const narrow = {
    nameWidth: Math.max(...names, 0) + 1,
    stateWidth: Math.max('applying'.length, ...states) + 1,
    gap: 1,
    keysOnRows: false,
  };
  const left = Math.min(maxSpark, room - cells(narrow) - staleRoom);
  return { ...narrow, sparkWidth: left >= MIN_SPARK ? left : 0 };
}

/** A row of cells on one line, cut at the terminal's edge. */
const row = (...cells: ReactElement[]): ReactElement => h(Text, { wrap: 'truncate-end' }, ...cells);

/**
 * One consumer: diverged (its latest write was dropped: it will never arrive;
 * red) and behind (queued or in flight: it will; grey), both from the broker's
 * view, so a frozen consumer's diverged count climbs while it is stopped.
 */
function ConsumerRow({ c, keys, layout }: { c: ConsumerLive; keys: number; layout: Layout }): ReactElement {
  // Something is being done to it: yellow, red once it has diverged.
  const colour = c.diverged
    ? 'red'
    : c.state === 'STALLED' || c.state === 'slowed' || isLinkState(c.state)
      ? 'yellow'
      : 'green';
  const count = (n: number | null) => (n === null ? '?' : String(n)).padStart(5);
  const gap = ' '.repeat(layout.gap);
  return row(
    h(Text, { color: colour }, `${c.name}${c.foreign ? '*' : ''}`.padEnd(layout.nameWidth)),
    h(Text, { color: STATE_COLOUR[c.state] }, c.state.padEnd(layout.stateWidth)),
    h(Text, null, `applied ${String(c.applied).padStart(7)}${gap}`),
    h(
      Text,
      { color: c.diverged ? 'red' : 'green' },
      `diverged ${count(c.diverged)}${layout.keysOnRows ? ` / ${keys}` : ''}${gap}`,
    ),
    h(Text, { color: 'gray' }, `behind ${count(c.behind)}${gap}`),
    ...(layout.sparkWidth > 0 ? [h(Text, { color: 'red' }, sparkline(c.divergedSeries, layout.sparkWidth))] : []),
    ...staleCell(c),
  );
}

/** A crowded run's consumers with nothing going on, as one row in the columns of theirs (live-fold.ts). */
function HealthyRow({ healthy, keys, layout }: { healthy: LiveHealthy; keys: number; layout: Layout }): ReactElement {
  // The most any of them is behind: "≤ 12" (none more), or just 0.
  const behind = (healthy.behindMax === null ? '?' : healthy.behindMax === 0 ? '0' : `≤ ${healthy.behindMax}`).padStart(
    5,
  );
  const gap = ' '.repeat(layout.gap);
  return row(
    h(Text, { color: 'green' }, `${healthy.count} healthy`.padEnd(layout.nameWidth)),
    h(Text, { color: STATE_COLOUR.applying }, 'applying'.padEnd(layout.stateWidth)),
    h(Text, null, `applied ${appliedRange(healthy).padStart(7)}${gap}`),
    h(Text, { color: 'green' }, `diverged ${'0'.padStart(5)}${layout.keysOnRows ? ` / ${keys}` : ''}${gap}`),
    h(Text, { color: 'gray' }, `behind ${behind}`),
  );
}

/** In a crowded run, the lists on one line (broker drops, faults) name this many, then say how many more: the line fits
 * 120 columns. */
const LISTED = 2;

/** Its own stale signal (progress.ts' words): bold while it is stale now, dimmed after. */
function staleCell(c: ConsumerLive): ReactElement[] {
  const words = staleWords(c);
  return words === ''
    ? []
    : [h(Text, c.staleness?.now ? { color: 'yellow', bold: true } : { dimColor: true }, `  ${words}`)];
}

/** The live view of one mode: pure, rendered from a snapshot (tested with ink-testing-library). */
export function Dashboard({
  snapshot,
  phase,
  size = DEFAULT_SIZE,
}: {
  snapshot: LiveSnapshot | undefined;
  phase: { mode: Mode; phase: PhaseName; seconds: number };
  size?: TerminalSize;
}): ReactElement {
  const s = snapshot;
  const many = crowded(s?.consumers.length ?? 0);
  const fold = foldLive(s?.consumers ?? [], liveRowsFor(size.rows));
  const dropped = s?.consumers.filter((c) => c.dropped > 0) ?? [];
  const drops =
    someNames(
      dropped.map((c) => `${c.name} ${c.dropped}`),
      many ? LISTED : Infinity,
    ) || 'none';
  const faults = s === undefined ? [] : many ? s.faults.slice(0, LISTED) : s.faults;
  const moreFaults =
    s !== undefined && faults.length < s.faults.length ? ` and ${s.faults.length - faults.length} more` : '';
  const layout = layoutFor(size, fold.shown, fold.healthy, s?.keys ?? 0, many);
  return h(
    Box,
    { flexDirection: 'column', paddingX: 1, width: size.columns },
    h(
      Text,
      { bold: true, wrap: 'truncate-end' },
      MODE_LABELS[phase.mode],
      ...(s !== undefined && !layout.keysOnRows ? [h(Text, { bold: false }, `  (${s.keys} keys)`)] : []),
    ),
    h(
      Box,
      null,
      h(Text, { color: phaseColour(phase.phase), bold: true }, phase.phase.padEnd(12)),
      h(
        Text,
        null,
        `${progressBar(s?.seconds ?? phase.seconds, s?.totalSeconds ?? 1)} ` +
          `${(s?.seconds ?? phase.seconds).toFixed(1)}s / ${s?.totalSeconds ?? '?'}s`,
      ),
    ),
    h(Text, null, ' '),
    ...(fold.healthy === null ? [] : [h(HealthyRow, { key: 'healthy', healthy: fold.healthy, keys: s!.keys, layout })]),
    ...fold.shown.map((c) => h(ConsumerRow, { key: c.name, c, keys: s!.keys, layout })),
    ...(fold.hidden.length === 0
      ? []
      : [
          h(
            Text,
            { color: 'yellow', wrap: 'truncate-end' },
            `+ ${fold.hidden.length} more faulted or off, no room for their rows: ` +
              `${fold.hidden.map((c) => c.name).join(', ')}`,
          ),
        ]),
    h(Text, null, ' '),
    // The publisher's line may wrap, whole words at a time: it is text, not a row of cells.
    h(
      Text,
      many ? { wrap: 'truncate-end' } : null,
      h(
        Text,
        null,
        `publisher  published ${s?.published ?? 0}   rate ${Math.round(s?.publisherRate ?? 0)}/s (last 2 s)` +
          `${s?.publisherBacklog ? `   backlog ${s.publisherBacklog} keys held back` : ''}   ` +
          `${s?.brokerDown ? 'broker DOWN (killed; restarting)' : `broker drops: ${drops}`}`,
      ),
      ...(s?.publisherLink
        ? [h(Text, { color: STATE_COLOUR[LINK_STATE[s.publisherLink]] }, `   link ${LINK_STATE[s.publisherLink]}`)]
        : []),
    ),
    ...(faults.length > 0
      ? [h(Text, many ? { wrap: 'truncate-end' } : null, `faults: ${faultWindows(faults)}${moreFaults}`)]
      : []),
    h(
      Text,
      { dimColor: true },
      `${s?.consumers.some((c) => c.foreign) ? '* a consumer someone else wrote   ' : ''}` +
        `${modeSpec(phase.mode).silentLoss ? 'a consumer is never told it is wrong   ' : ''}[q] quit`,
    ),
  );
}

/** The terminal's size now (a stream that is not a terminal has none: the default). */
const sizeOf = (stdout: NodeJS.WriteStream): TerminalSize => ({
  columns: stdout.columns || DEFAULT_SIZE.columns,
  rows: stdout.rows || DEFAULT_SIZE.rows,
});

function App({ store, onQuit }: { store: TuiStore; onQuit: () => void }): ReactElement {
  const [state, setState] = useState(store.state);
  useEffect(() => store.subscribe(setState), [store]);
  // Laid out for the terminal's size, again whenever it is resized.
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const resized = () => setSize(sizeOf(stdout));
    stdout.on('resize', resized);
    return () => void stdout.off('resize', resized);
  }, [stdout]);
  useInput((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onQuit();
  });
  return h(Dashboard, { ...state, size });
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
    phase: (mode, phase, seconds) =>
      store.update({ phase: { mode, phase, seconds }, ...(phase === 'converged' ? { snapshot: undefined } : {}) }),
    tick: (snapshot) =>
      store.update({ snapshot, phase: { mode: snapshot.mode, phase: snapshot.phase, seconds: snapshot.seconds } }),
    close: () => {
      if (closed) return;
      closed = true;
      instance.unmount();
      instance.cleanup();
    },
  };
}
