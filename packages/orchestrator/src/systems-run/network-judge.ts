import type { Signal } from '@state-divergence/systems';
import type { Acknowledged } from './publish.js';

/** One consumer's network faults, for the judge: its partitions' windows and its resets, in seconds. */
export interface LinkEvidence {
  partitions: readonly { from: number; to: number }[];
  resets: readonly number[];
}

export const NO_LINK_FAULTS: LinkEvidence = { partitions: [], resets: [] };

const secs = (ms: number) => (Math.round(ms) / 1000).toFixed(3);

/**
 * What a network fault adds to the evidence of one undelivered last write (judge.ts): that its
 * connection was reset before it was delivered (written before the consumer's first reconnect or
 * relist after the reset: held in a buffer the reset discarded, or published while it had no
 * connection), or that it was written while its link was partitioned. `startedAt`: wall-clock ms
 * when publishing started (signals carry wall-clock times, the rest seconds since it).
 */
export function networkWords(
  last: Acknowledged,
  signals: readonly Signal[],
  links: LinkEvidence,
  startedAt: number,
): string {
  for (const reset of links.resets) {
    const back = signals.find(
      (s) => (s.kind === 'reconnect' || s.kind === 'relist') && s.atMs - startedAt >= reset * 1000,
    );
    const backMs = back === undefined ? Infinity : back.atMs - startedAt;
    if (last.atMs <= backMs)
      return (
        `; its connection was reset at ${reset} s before it was delivered ` +
        `(${back === undefined ? 'no reconnect seen' : `its ${back.kind} at ${secs(backMs)} s`})`
      );
  }
  const partition = links.partitions.find((p) => last.atMs >= p.from * 1000 && last.atMs < p.to * 1000);
  return partition === undefined
    ? ''
    : `; written while its link was partitioned (${partition.from}-${partition.to} s)`;
}
