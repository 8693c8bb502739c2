import type { PhaseName } from '../model/events.js';
import type { RunObserver } from '../model/live.js';
import type { LiveMonitor } from './live-monitor.js';

/**
 * Samples the run for its observer every `observer.intervalMs`. A slow round
 * is skipped, never queued: on 2 cores a sample must not pile up behind the run.
 */
export function startSampling(monitor: LiveMonitor, observer: RunObserver, now: () => { phase: PhaseName; seconds: number }): { stop(): void } {
  let sampling = false;
  const sample = () => {
    if (sampling) return;
    sampling = true;
    const { phase, seconds } = now();
    monitor
      .sample(phase, seconds)
      .then(observer.tick, () => {})
      .finally(() => (sampling = false));
  };
  const ticker = setInterval(sample, observer.intervalMs);
  return { stop: () => clearInterval(ticker) };
}
