import { durationSeconds, kb, secondsText } from '../edge.js';
import type { EdgeFigures, EdgePrediction } from '../target-system.js';
import { knob } from '../knobs.js';

/**
 * Core NATS: the kernel's buffers take what a frozen client does not read (bufferBytes); then
 * the server's write blocks, and a write blocked past write_deadline cuts the client off as slow
 * (max_pending, 64 MB by default, is far behind at these rates; the earlier of the two decides).
 */
export function natsEdge(figures: EdgeFigures): EdgePrediction {
  const deadline = durationSeconds(knob(figures.knobs, 'write-deadline'));
  const maxPending = Number(knob(figures.knobs, 'max-pending'));
  const { bytesPerSecond: perSecond, bufferBytes } = figures;
  if (perSecond === null || perSecond <= 0 || bufferBytes === null)
    return { seconds: null, limit: `write_deadline ${deadline} s: no bytes per second measured` };
  const rate = `${kb(perSecond)}/s`;
  const full = bufferBytes / perSecond;
  const byDeadline = full + deadline;
  const byPending = (bufferBytes + maxPending) / perSecond;
  if (byPending < byDeadline)
    return {
      seconds: byPending,
      limit: `max_pending: (kernel ${kb(bufferBytes)} + ${kb(maxPending)}) ÷ ${rate} = ${secondsText(byPending)}`,
    };
  return {
    seconds: byDeadline,
    limit: `write_deadline: kernel ${kb(bufferBytes)} ÷ ${rate} + ${deadline} s = ${secondsText(byDeadline)}`,
  };
}
