import type { Absorption } from '../model/check-types.js';
import { kib } from './units.js';

/** What a frozen consumer's transport swallowed in one stall, as one sentence (text and HTML reports). */
export function absorptionSentence(a: Absorption, datagramBytes: number): string {
  const datagram = `${datagramBytes}-byte datagrams`;
  return a.queueFilled
    ? `its transport took ${kib(a.bytes)} in the first ${a.seconds.toFixed(2)} s of the stall (${datagram}); only ` +
        `then did the broker's queue start to fill`
    : `its transport took all ${kib(a.bytes)} sent in the stall (${datagram}): the broker's queue never filled`;
}
