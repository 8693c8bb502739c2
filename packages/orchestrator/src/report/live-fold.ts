import type { ConsumerLive } from '../model/live.js';
import { crowded } from './crowd.js';

/**
 * The live view and the progress lines of a crowded run (crowd.ts: more than CROWD consumers):
 * the consumers with nothing going on fold into one row, every other one keeps its own row, up
 * to LIVE_ROWS of them so the live view fits a 40-line terminal (its frame takes nine lines, and
 * a long publisher or faults line may wrap once each), fewer on a shorter one (liveRowsFor: 8 on
 * 24 lines). A run of CROWD or fewer is listed whole.
 */
export const LIVE_ROWS = 24;
const FRAME_MARGIN = 40 - LIVE_ROWS;
/** The rows a crowded run's live view has room for on a terminal this many lines high (the plain progress lines:
 * LIVE_ROWS). */
export const liveRowsFor = (terminalRows: number): number =>
  Math.max(1, Math.min(LIVE_ROWS, terminalRows - FRAME_MARGIN));

/** Off right now: diverged, dropped for, stale, or not simply applying (frozen, slowed, crashed, resyncing, ended, its
 * link faulted). */
const offNow = (c: ConsumerLive): boolean =>
  c.state !== 'applying' || (c.diverged ?? 0) > 0 || c.dropped > 0 || c.staleness?.now === true;
/** Harmed, not just late: it diverged, the broker dropped events for it, or its process is gone. */
const harmed = (c: ConsumerLive): boolean =>
  (c.diverged ?? 0) > 0 || c.dropped > 0 || c.state === 'ended' || c.state === 'crashed';
/** Worth a row: off now, or one the run faults at some point, or one someone else wrote. */
const standsOut = (c: ConsumerLive): boolean => c.faulted || c.foreign || offNow(c);
/**
 * Who gets a row when not all can: first the harmed and the faulted or foreign ones off now, then
 * the rest of the faulted and foreign (what the run is about: a stalled consumer keeps its row
 * after its thaw), then the healthy ones that are only late (stale, resyncing), which on a loaded
 * machine can be most of them.
 */
const rank = (c: ConsumerLive): number =>
  harmed(c) || ((c.faulted || c.foreign) && offNow(c)) ? 0 : c.faulted || c.foreign ? 1 : 2;

export interface LiveHealthy {
  count: number;
  applied: { min: number; max: number };
  /** The most keys any of them is behind (on their way); null: the broker did not answer. */
  behindMax: number | null;
}

export interface LiveFold {
  /** The folded consumers' row; null when the run is not crowded (every consumer has its own row). */
  healthy: LiveHealthy | null;
  /** The rows, in run order (who gets one when not all can: `rank`). */
  shown: ConsumerLive[];
  /** Consumers that stand out but found no room, in run order. */
  hidden: ConsumerLive[];
}

export function foldLive(consumers: ConsumerLive[], rows = LIVE_ROWS): LiveFold {
  if (!crowded(consumers.length)) return { healthy: null, shown: consumers, hidden: [] };
  const quiet = consumers.filter((c) => !standsOut(c));
  const out = consumers.filter(standsOut);
  const kept = new Set([0, 1, 2].flatMap((r) => out.filter((c) => rank(c) === r)).slice(0, rows));
  const behind = quiet.map((c) => c.behind);
  return {
    healthy: {
      count: quiet.length,
      applied: { min: Math.min(...quiet.map((c) => c.applied)), max: Math.max(...quiet.map((c) => c.applied)) },
      behindMax: behind.length === 0 || behind.includes(null) ? null : Math.max(...(behind as number[])),
    },
    shown: out.filter((c) => kept.has(c)),
    hidden: out.filter((c) => !kept.has(c)),
  };
}

/** "2990-3000", or "3000" when they agree. */
export const appliedRange = (h: LiveHealthy): string =>
  h.count === 0 ? '-' : h.applied.min === h.applied.max ? String(h.applied.min) : `${h.applied.min}-${h.applied.max}`;
