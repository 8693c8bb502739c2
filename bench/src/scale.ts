import type { ModeResult } from '@state-divergence/orchestrator';
import { demoRun, worstHealthyP99 } from './demo.js';

const SCALE_RATE = 400;

export interface ScalePoint {
  consumers: number;
  /**
   * Consumers hosted per pool process, the largest pool's count (1: every consumer a process of
   * its own), and how many pools. Absent from results measured before pools existed: 1 and 0.
   */
  poolSize?: number;
  pools?: number;
  completed: boolean;
  verdict: string;
  /** Drops or lag signals for consumers that were never frozen. */
  healthyDropsOrLags: number;
  /** Achieved ÷ requested publish rate: with too many processes for the cores, the publisher falls behind too. */
  publisherRatio: number;
  /** The worst healthy consumer's publish-to-apply p99, ms. */
  healthyP99Ms: number | null;
  /** CPU seconds (all processes of a kind) and peak RSS (largest process of a kind), MiB. */
  byKind: Record<string, { processes: number; cpuSeconds: number; peakRssMiB: number }>;
  /** Every process's peak RSS, summed (the orchestrator's included), MiB (absent from older results). */
  peakRssMiB?: number;
  /** From the mode's start until publishing began (every process started, every consumer subscribed), s (absent from
   * older results). */
  startSeconds?: number;
  error?: string;
}

const byKindOf = (result: ModeResult): ScalePoint['byKind'] => {
  const byKind: ScalePoint['byKind'] = {};
  for (const p of result.processes) {
    const kind = (byKind[p.role] ??= { processes: 0, cpuSeconds: 0, peakRssMiB: 0 });
    kind.processes += 1;
    kind.cpuSeconds = Math.round((kind.cpuSeconds + p.cpuMs / 1000) * 100) / 100;
    kind.peakRssMiB = Math.max(kind.peakRssMiB, Math.round(p.maxRssKb / 1024));
  }
  return byKind;
};

/** Members of the largest pool (1 when every consumer ran alone) and the number of pools. */
function poolsOf(result: ModeResult): { poolSize: number; pools: number } {
  const members = new Map<string, number>();
  for (const { pool } of result.consumers) {
    if (pool !== null) members.set(pool, (members.get(pool) ?? 0) + 1);
  }
  return { poolSize: Math.max(1, ...members.values()), pools: members.size };
}

/**
 * (5) Resync at 400/s with many consumers on 2 cores: completes? converges? at what cost?
 * `poolSize`: --pool-size (1: a process per consumer, as before pools); absent: the default.
 */
export async function scale(consumers: number, duration: number, poolSize?: number): Promise<ScalePoint> {
  try {
    const result = await demoRun('resync', {
      consumers,
      duration,
      rate: SCALE_RATE,
      ...(poolSize !== undefined && { poolSize }),
    });
    const healthy = result.consumers.filter((c) => !c.faulted).map((c) => result.broker?.subscribers[c.name]);
    const healthyDropsOrLags = healthy.reduce((sum, q) => sum + (q ? q.dropped + q.lags : 1), 0);
    return {
      consumers,
      ...poolsOf(result),
      completed: true,
      verdict: result.check.verdict,
      healthyDropsOrLags,
      publisherRatio: result.publisher.achievedRate / SCALE_RATE,
      healthyP99Ms: worstHealthyP99(result),
      byKind: byKindOf(result),
      peakRssMiB: Math.round(result.processes.reduce((sum, p) => sum + p.maxRssKb, 0) / 1024),
      startSeconds: Math.round(result.origin.runMs / 100) / 10,
    };
  } catch (error) {
    return {
      consumers,
      completed: false,
      verdict: 'unknown',
      healthyDropsOrLags: Number.NaN,
      publisherRatio: Number.NaN,
      healthyP99Ms: null,
      byKind: {},
      error: (error as Error).message,
    };
  }
}

/** Kept up: no healthy drop or lag *and* the publisher held 95 % of its rate (a starved publisher hides lag: it makes
 * fewer changes). */
export const keptUp = (p: ScalePoint): boolean =>
  p.completed && p.verdict === 'valid' && p.healthyDropsOrLags === 0 && p.publisherRatio >= 0.95;
