import { byteSize, kb, secondsText } from '../edge.js';
import type { EdgeFigures, EdgePrediction } from '../target-system.js';
import { knob } from '../knobs.js';
import { PUBSUB_LIMIT_KNOB } from './knobs.js';

/**
 * Redis buffers for a subscriber only what its socket will not take: the kernel's buffers fill
 * first (bufferBytes), then the output buffer grows. It cuts the subscriber off at the hard limit,
 * or once the buffer has stayed over the soft limit for the soft seconds: the earlier of the two.
 */
export function redisPubsubEdge(figures: EdgeFigures): EdgePrediction {
  const [hardText = '', softText = '', softSecondsText = ''] = knob(figures.knobs, PUBSUB_LIMIT_KNOB).split(/\s+/);
  const [hard, soft, softSeconds] = [byteSize(hardText), byteSize(softText), Number(softSecondsText)];
  const { bytesPerSecond: perSecond, bufferBytes } = figures;
  if (perSecond === null || perSecond <= 0 || bufferBytes === null)
    return {
      seconds: null,
      limit: `pubsub limit ${hardText} ${softText} ${softSecondsText}: no bytes per second measured`,
    };
  const fill = (limit: number) => (bufferBytes + limit) / perSecond;
  const byHard = hard > 0 ? fill(hard) : Infinity;
  const bySoft = soft > 0 ? fill(soft) + softSeconds : Infinity;
  const seconds = Math.min(byHard, bySoft);
  const rate = `${kb(perSecond)}/s`;
  const arithmetic =
    bySoft <= byHard
      ? `(kernel ${kb(bufferBytes)} + soft ${softText}) ÷ ${rate} + ${softSeconds} s`
      : `(kernel ${kb(bufferBytes)} + hard ${hardText}) ÷ ${rate}`;
  if (!Number.isFinite(seconds)) return { seconds: null, limit: 'pubsub limit 0 0 0: never cut off' };
  return { seconds, limit: `output buffer limit: ${arithmetic} = ${secondsText(seconds)}` };
}
