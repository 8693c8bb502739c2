import { faultWindow } from '../model/faults.js';
import type { ConsumerProgress, SystemRunObserver, SystemRunPlan, SystemSnapshot } from './system-progress.js';

/** The terminal the view is drawn on; a stream that says no size is taken for 80×24, the smallest usual one. */
export interface TerminalSize {
  columns: number;
  rows: number;
}
const SMALLEST: TerminalSize = { columns: 80, rows: 24 };

/** What the view shows: the run's plan, its latest snapshot, and when each stalled consumer was frozen and thawed. */
export interface SystemLiveState {
  plan: SystemRunPlan;
  snapshot: SystemSnapshot | undefined;
  /** Per consumer, its last freeze or thaw: seconds since publishing started. */
  stalls: Map<string, { frozen: boolean; at: number }>;
}

/** The lines that are not a consumer's: the title, the publisher, the stalls, the footer. */
const FIXED_LINES = 4;

/** Consumers to list when not all fit: the frozen, the signalled and the wrong first, then in name order. */
function shownConsumers(consumers: readonly ConsumerProgress[], room: number): ConsumerProgress[] {
  if (consumers.length <= room) return [...consumers];
  const notable = (c: ConsumerProgress) => c.state === 'frozen' || c.signals > 0 || (c.wrongNow ?? 0) > 0;
  const picked = new Set([...consumers.filter(notable), ...consumers].slice(0, Math.max(0, room - 1)));
  return consumers.filter((c) => picked.has(c));
}

function consumerLine(c: ConsumerProgress, nameWidth: number): string {
  const last = c.lastSignal === null ? '' : ` (last: ${c.lastSignal})`;
  const wrong = c.wrongNow === null ? '' : `  wrong now ${c.wrongNow}`;
  return (
    `${c.name.padEnd(nameWidth)} ${c.state.padEnd(7)} applied ${String(c.applied).padStart(7)}  ` +
    `signals ${c.signals}${last}${wrong}`
  );
}

/**
 * The live view's frame, pure: a title (system, idiom, where the run is), a line per consumer
 * (its state, applied, signals so far), the publisher's acknowledged count and rate, the stalls,
 * a footer. It fits the terminal: each line is cut at its edge (one column short of it, so the
 * terminal never wraps), and the frame stays a line shorter than the screen, so redrawing it in
 * place always reaches its top; consumers that do not fit are counted on one line.
 */
export function systemLiveLines(state: SystemLiveState, size: TerminalSize = SMALLEST): string[] {
  const { plan, snapshot: s } = state;
  const consumers: ConsumerProgress[] =
    s?.consumers ??
    plan.consumers.map((name) => ({
      name,
      state: 'running',
      applied: 0,
      relists: 0,
      signals: 0,
      lastSignal: null,
      wrongNow: null,
    }));
  const room = Math.max(1, size.rows - 1 - FIXED_LINES);
  const shown = shownConsumers(consumers, room);
  const hidden = consumers.filter((c) => !shown.includes(c));
  const nameWidth = Math.max(...consumers.map((c) => c.name.length));
  const done = hidden.filter((c) => c.state === 'done').length;
  const where = s === undefined ? 'starting' : `${s.stage}, ${s.seconds.toFixed(1)} s`;
  const stalls = plan.stalls.map((stall) => {
    const now = state.stalls.get(stall.consumer);
    const event = now === undefined ? '' : ` (${now.frozen ? 'frozen' : 'thawed'} at ${now.at.toFixed(1)} s)`;
    return `${stall.consumer} ${faultWindow({ kind: 'stall', ...stall })}${event}`;
  });
  const lines = [
    `${plan.system} (${plan.idiom}): ${where}; publishing until ${plan.publishEndsAt} s`,
    ...shown.map((c) => consumerLine(c, nameWidth)),
    ...(hidden.length === 0 ? [] : [`+ ${hidden.length} more, ${done} of them done: no room for their rows`]),
    `publisher  acknowledged ${s?.acknowledged ?? 0}  rate ${s?.ratePerSec ?? 0}/s (last 2 s)`,
    `stalls: ${stalls.join(', ') || 'none'}`,
    'Ctrl-C stops the run (every process reaped)',
  ];
  return lines.map((line) => line.slice(0, Math.max(1, size.columns - 1)));
}

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
/** To the start of the line `n` lines up, then erase to the end of the screen: the last frame gone. */
const eraseLines = (n: number): string => (n === 0 ? '' : `\u001b[${n}F\u001b[J`);

/**
 * The live view of a run against a real system, redrawn in place on the terminal (`out`, a TTY) at
 * each snapshot: plain lines, no ink (a frame of a few lines needs no layout engine, and a run
 * against a real system has no keys to read: Ctrl-C is the session's). At `done` the frame is
 * erased, so the run's text report follows where it stood; `close` gives the cursor back. Nothing
 * is drawn once `signal` (the session's) has aborted.
 */
export function systemLiveView(out: NodeJS.WriteStream, signal: AbortSignal): SystemRunObserver & { close(): void } {
  let state: SystemLiveState | undefined;
  let drawn = 0;
  const sizeOf = (): TerminalSize => ({ columns: out.columns || SMALLEST.columns, rows: out.rows || SMALLEST.rows });
  const draw = () => {
    // Once the run is aborted the session has written below the frame: a redraw would erase that, not the frame.
    if (state === undefined || signal.aborted) return;
    const lines = systemLiveLines(state, sizeOf());
    out.write(eraseLines(drawn) + lines.join('\n') + '\n');
    drawn = lines.length;
  };
  const erase = () => {
    out.write(eraseLines(drawn));
    drawn = 0;
    state = undefined;
  };
  const showCursor = () => void out.write(SHOW_CURSOR);
  process.once('exit', showCursor);
  out.on('resize', draw);
  out.write(HIDE_CURSOR);
  return {
    started: (plan) => {
      state = { plan, snapshot: undefined, stalls: new Map() };
      draw();
    },
    stall: (consumer, frozen, at) => {
      state?.stalls.set(consumer, { frozen, at });
      draw();
    },
    snapshot: (snapshot) => {
      if (state !== undefined) state.snapshot = snapshot;
      draw();
    },
    done: erase,
    // A run that ends without `done` (interrupted, failed) leaves its last frame: where it stood, above
    // the session's lines that say why (written after the frame, so erasing it now would miss its top).
    close: () => {
      state = undefined;
      out.off('resize', draw);
      process.removeListener('exit', showCursor);
      showCursor();
    },
  };
}
