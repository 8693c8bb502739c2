import type { PhaseName } from '../model/events.js';
import type { RunObserver } from '../model/live.js';
import type { LiveMonitor } from './live-monitor.js';

/**
 * Samples the run every `sampleMs` (a quarter phase or less, for the over-time
 * series) and hands the observer a sample no more often than it asked
 * (the live view ~2/s, plain lines 1/s). A slow round is skipped, never queued:
 * on 2 cores a sample must not pile up behind the run.
 */
export function startSampling(
  monitor: LiveMonitor,
  observer: RunObserver,
  sampleMs: number,
  now: () => { phase: PhaseName; seconds: number },
): { stop(): void } {
  let sampling = false;
  let lastTold = Number.NEGATIVE_INFINITY;
  const sample = () => {
    if (sampling) return;
    sampling = true;
    const { phase, seconds } = now();
    monitor
      .sample(phase, seconds)
      .then(
        (snapshot) => {
          // A little slack, so a sample that lands a few ms early is not skipped for a whole interval.
          if (performance.now() - lastTold < observer.intervalMs * 0.9) return;
          lastTold = performance.now();
          observer.tick(snapshot);
        },
        () => {},
      )
      .finally(() => (sampling = false));
  };
  const ticker = setInterval(sample, sampleMs);
  return { stop: () => clearInterval(ticker) };
}
