import type { ConsumerLive } from '../model/live.js';
import { crowded } from './crowd.js';

/**
 * The live view and the progress lines of a crowded run (crowd.ts: more than CROWD consumers):
 * the consumers with nothing going on fold into one row, every other one keeps its own row, up
 * to LIVE_ROWS of them so the live view fits a 40-line terminal (its frame takes nine lines, and
 * a long publisher or faults line may wrap once each). A run of CROWD or fewer is listed whole.
 */
export const LIVE_ROWS = 24;

/** Off right now: diverged, dropped for, stale, or not simply applying (frozen, slowed, crashed, resyncing, ended, its link faulted). */
const offNow = (c: ConsumerLive): boolean => c.state !== 'applying' || (c.diverged ?? 0) > 0 || c.dropped > 0 || c.staleness?.now === true;
/** Worth a row: off now, or one the run faults at some point, or one someone else wrote. */
const standsOut = (c: ConsumerLive): boolean => c.faulted || c.foreign || offNow(c);

export interface LiveHealthy {
  count: number;
  applied: { min: number; max: number };
  /** The most keys any of them is behind (on their way); null: the broker did not answer. */
  behindMax: number | null;
}

export interface LiveFold {
  /** The folded consumers' row; null when the run is not crowded (every consumer has its own row). */
  healthy: LiveHealthy | null;
  /** The rows, in run order. */
  shown: ConsumerLive[];
  /** Consumers that stand out but found no room, in run order. */
  hidden: ConsumerLive[];
}

export function foldLive(consumers: ConsumerLive[], rows = LIVE_ROWS): LiveFold {
  if (!crowded(consumers.length)) return { healthy: null, shown: consumers, hidden: [] };
  const quiet = consumers.filter((c) => !standsOut(c));
  const out = consumers.filter(standsOut);
  // No room for all: the ones off right now first, then the others, each group in run order.
  const kept = new Set([...out.filter(offNow), ...out.filter((c) => !offNow(c))].slice(0, rows));
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
export const appliedRange = (h: LiveHealthy): string => (h.count === 0 ? '-' : h.applied.min === h.applied.max ? String(h.applied.min) : `${h.applied.min}-${h.applied.max}`);
