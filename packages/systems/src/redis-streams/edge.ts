import { secondsText } from '../edge.js';
import type { EdgeFigures, EdgePrediction } from '../target-system.js';
import { knob } from '../knobs.js';
import { MAXLEN_KNOB } from './names.js';

/**
 * The writer trims the stream to about MAXLEN entries; a reader frozen at its last id loses the
 * entries after it once MAXLEN more were added, so the stall it survives is MAXLEN ÷ rate.
 */
export function redisStreamsEdge(figures: EdgeFigures): EdgePrediction {
  const maxlen = Number(knob(figures.knobs, MAXLEN_KNOB));
  if (maxlen === 0) return { seconds: null, limit: 'MAXLEN 0: the stream is never trimmed' };
  if (figures.rate <= 0) return { seconds: null, limit: `MAXLEN ~${maxlen}, nothing written in the stall` };
  const seconds = maxlen / figures.rate;
  return { seconds, limit: `MAXLEN ~${maxlen} ÷ ${figures.rate}/s = ${secondsText(seconds)}` };
}
