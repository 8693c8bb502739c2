import type { LatencySamples } from '@state-divergence/protocol';
import { ensureRoom } from '@state-divergence/runtime';

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
    this.appliedAt = ensureRoom(this.appliedAt, this.count, MAX_SAMPLES);
    this.latencyMs = ensureRoom(this.latencyMs, this.count, MAX_SAMPLES);
    this.appliedAt[this.count] = appliedAt;
    this.latencyMs[this.count] = appliedAt - publishedAt;
    this.count += 1;
  }

  samples(): LatencySamples {
    return { appliedAt: this.appliedAt.slice(0, this.count), latencyMs: this.latencyMs.slice(0, this.count) };
  }
}
