import { MODE_SHORT } from './labels.js';
import { someNames } from './crowd.js';
import { appliedRange, foldLive } from './live-fold.js';
import { isLinkState, LINK_STATE, type ConsumerLive, type RunObserver } from '../model/live.js';
import { duration } from './units.js';

/** Of the consumers with no room on a crowded line, this many are named. */
const HIDDEN_NAMED = 8;

/** What is being done to it, when anything is: "(frozen)", "(slowed)", "(PARTITIONED)". */
function stateWords(c: ConsumerLive): string {
  if (c.state === 'STALLED') return ' (frozen)';
  return c.state === 'slowed' || c.state === 'crashed' || isLinkState(c.state) ? ` (${c.state})` : '';
}

/**
 * Its own stale signal in words, the live view's and these lines': "STALE 1.3 s" while it hears
 * nothing from the broker (the time so far), "stale 1.3 s" once it hears again; '' where it never
 * was stale or does not track it.
 */
export function staleWords(c: ConsumerLive): string {
  const s = c.staleness;
  return s === null || (!s.now && s.ms === 0) ? '' : `${s.now ? 'STALE' : 'stale'} ${duration(s.ms)}`;
}

/** One consumer on a progress line: "consumer-3 1400 (frozen) diverged 312 behind 520 dropped 1088". */
function consumerWords(c: ConsumerLive): string {
  const state = stateWords(c);
  // Diverged will never arrive; behind is on its way: one number would hide which is which.
  const split = `${c.diverged ? ` diverged ${c.diverged}` : ''}${c.behind ? ` behind ${c.behind}` : ''}`;
  return (
    `${c.name}${c.foreign ? '*' : ''} ${c.applied}${state}${split}${c.dropped > 0 ? ` dropped ${c.dropped}` : ''}` +
    `${staleWords(c) && ` ${staleWords(c)}`}`
  );
}

/**
 * Plain progress lines: one per phase change and one per second (no TTY, or --no-tui). A crowded
 * run's line folds the consumers with nothing going on into "253 healthy 2990-3000" and names as
 * many others as the live view has rows for (live-fold.ts).
 */
export function textProgress(write: (line: string) => void): RunObserver {
  return {
    intervalMs: 1000,
    phase: (mode, phase, seconds) => write(`[${MODE_SHORT[mode]}] ${seconds.toFixed(1).padStart(5)}s  phase ${phase}`),
    tick: (s) => {
      const fold = foldLive(s.consumers);
      const consumers = [
        ...(fold.healthy === null ? [] : [`${fold.healthy.count} healthy ${appliedRange(fold.healthy)}`]),
        ...fold.shown.map(consumerWords),
        ...(fold.hidden.length === 0
          ? []
          : [
              `+ ${fold.hidden.length} more faulted or off: ${someNames(
                fold.hidden.map((c) => c.name),
                HIDDEN_NAMED,
              )}`,
            ]),
      ].join('  ');
      const backlog = s.publisherBacklog ? `  publisher backlog ${s.publisherBacklog}` : '';
      const broker =
        `${s.brokerDown ? '  broker DOWN' : ''}` +
        `${s.publisherLink ? `  publisher link ${LINK_STATE[s.publisherLink]}` : ''}`;
      write(
        `[${MODE_SHORT[s.mode]}] ${s.seconds.toFixed(1).padStart(5)}s  ${s.phase.padEnd(10)}  published ` +
          `${s.published}${backlog}${broker}  ${consumers}`,
      );
    },
  };
}

export const silentProgress: RunObserver = { intervalMs: 1000, phase: () => {}, tick: () => {} };
