import type { LatencySamples } from '@state-divergence/protocol';

/** At 400/s a default run applies ~5k events; the cap only matters for very long runs. */
const MAX_SAMPLES = 1_000_000;

/**
 * Publish-to-apply latency per event, kept as raw samples so the orchestrator
 * can cut them by phase (healthy consumers during someone else's stall). Both
 * clocks are the wall clock of one machine, shared by every process.
 */
export class LatencyLog {
  private appliedAt = new Float64Array(4096);
  private latencyMs = new Float64Array(4096);
  private count = 0;

  record(appliedAt: number, publishedAt: number): void {
    if (this.count === MAX_SAMPLES) return;
    if (this.count === this.appliedAt.length) {
      const grow = (old: Float64Array) => {
        const next = new Float64Array(Math.min(MAX_SAMPLES, old.length * 2));
        next.set(old);
        return next;
      };
      this.appliedAt = grow(this.appliedAt);
      this.latencyMs = grow(this.latencyMs);
    }
    this.appliedAt[this.count] = appliedAt;
    this.latencyMs[this.count] = appliedAt - publishedAt;
    this.count += 1;
  }

  samples(): LatencySamples {
    return { appliedAt: this.appliedAt.slice(0, this.count), latencyMs: this.latencyMs.slice(0, this.count) };
  }
}
