import { durationSeconds, secondsText } from '../edge.js';
import type { EdgeFigures, EdgePrediction } from '../target-system.js';
import { knob } from '../knobs.js';

/**
 * etcd keeps a slow watcher's events (behind HTTP/2 flow control, then in its own buffer) and the
 * watch resumes from its revision, unless that revision was compacted away: then the watch is
 * cancelled. So only compaction ends a stalled naive watch: in periodic mode, once the retention
 * has passed (a bare number is hours); in revision mode, once that many revisions were written.
 */
export function etcdEdge(figures: EdgeFigures): EdgePrediction {
  const retention = knob(figures.knobs, 'auto-compaction-retention');
  const mode = knob(figures.knobs, 'auto-compaction-mode');
  if (Number(retention) === 0) return { seconds: null, limit: 'auto-compaction-retention 0: history never compacted' };
  if (mode === 'revision') {
    const seconds = Number(retention) / figures.rate;
    return {
      seconds,
      limit: `revision compaction: ${retention} revisions ÷ ${figures.rate}/s = ${secondsText(seconds)}`,
    };
  }
  const seconds = /^\d+(\.\d+)?$/.test(retention) ? Number(retention) * 3600 : durationSeconds(retention);
  return { seconds, limit: `periodic compaction every ${retention} = ${secondsText(seconds)}` };
}
