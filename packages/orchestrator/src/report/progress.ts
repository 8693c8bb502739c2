import { MODE_SHORT } from './labels.js';
import type { RunObserver } from '../model/live.js';

/** Plain progress lines: one per phase change and one per second (no TTY, or --no-tui). */
export function textProgress(write: (line: string) => void): RunObserver {
  return {
    intervalMs: 1000,
    phase: (mode, phase, seconds) => write(`[${MODE_SHORT[mode]}] ${seconds.toFixed(1).padStart(5)}s  phase ${phase}`),
    tick: (s) => {
      const consumers = s.consumers
        .map((c) => {
          const state = c.state === 'STALLED' ? ' (frozen)' : c.state === 'slowed' || c.state === 'crashed' ? ` (${c.state})` : '';
          // Diverged will never arrive; behind is on its way: one number would hide which is which.
          const split = `${c.diverged ? ` diverged ${c.diverged}` : ''}${c.behind ? ` behind ${c.behind}` : ''}`;
          return `${c.name}${c.foreign ? '*' : ''} ${c.applied}${state}${split}${c.dropped > 0 ? ` dropped ${c.dropped}` : ''}`;
        })
        .join('  ');
      const backlog = s.publisherBacklog ? `  publisher backlog ${s.publisherBacklog}` : '';
      const broker = s.brokerDown ? '  broker DOWN' : '';
      write(`[${MODE_SHORT[s.mode]}] ${s.seconds.toFixed(1).padStart(5)}s  ${s.phase.padEnd(10)}  published ${s.published}${backlog}${broker}  ${consumers}`);
    },
  };
}

export const silentProgress: RunObserver = { intervalMs: 1000, phase: () => {}, tick: () => {} };
