import type { CapWindow } from '@state-divergence/protocol';
import type { Signal } from '@state-divergence/systems';
import { rateText } from '../model/faults.js';
import type { Acknowledged } from './publish.js';

/** A bandwidth cap of the consumer's link (seconds) and what its relay did over it (null: the relay did not report). */
export interface CapEvidence {
  from: number;
  to: number;
  rateBytesPerSec: number;
  relay: CapWindow | null;
}

/** One consumer's network faults, for the judge: its partitions' windows, its resets and its caps, in seconds. */
export interface LinkEvidence {
  partitions: readonly { from: number; to: number }[];
  resets: readonly number[];
  caps: readonly CapEvidence[];
}

export const NO_LINK_FAULTS: LinkEvidence = { partitions: [], resets: [], caps: [] };

const bytes = (n: number) => `${n.toLocaleString('en-US')} B`;

/** "capped at 20 KB/s (1-4 s): its relay forwarded 61,000 of 305,000 B to it, held at most 70,000 B, paused the
 * server's sending 3 times" (down: server to client, what a consumer receives). */
export function capWords(cap: CapEvidence): string {
  const head = `capped at ${rateText(cap.rateBytesPerSec)} (${cap.from}-${cap.to} s)`;
  const r = cap.relay;
  if (r === null) return `${head}: its relay did not report`;
  const dropped = r.dropped.down > 0 ? `, dropped ${r.dropped.down} datagrams (${bytes(r.droppedBytes.down)})` : '';
  const paused = r.pauses.down > 0 ? `, stopped reading the server ${r.pauses.down} times` : '';
  return (
    `${head}: its relay forwarded ${bytes(r.forwardedBytes.down)} of ${bytes(r.arrivedBytes.down)} to it, ` +
    `held at most ${bytes(r.maxHeldBytes.down)}${dropped}${paused}`
  );
}

const secs = (ms: number) => (Math.round(ms) / 1000).toFixed(3);

/**
 * What a network fault adds to the evidence of one undelivered last write (judge.ts): that its
 * connection was reset before it was delivered (written before the consumer's first reconnect or
 * relist after the reset: held in a buffer the reset discarded, or published while it had no
 * connection), that it was written while its link was partitioned, or while it was capped (or
 * after, before its first reconnect or relist since the cap began: a server that cut the slowed
 * consumer off cut it off here), with what the relay forwarded and held. `startedAt`: wall-clock ms
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
  if (partition !== undefined) return `; written while its link was partitioned (${partition.from}-${partition.to} s)`;
  for (const cap of links.caps) {
    const back = signals.find(
      (s) => (s.kind === 'reconnect' || s.kind === 'relist') && s.atMs - startedAt >= cap.from * 1000,
    );
    const backMs = back === undefined ? -Infinity : back.atMs - startedAt;
    if (last.atMs >= cap.from * 1000 && (last.atMs < cap.to * 1000 || last.issuedMs <= backMs))
      return `; written while its link was ${capWords(cap)}`;
  }
  return '';
}
