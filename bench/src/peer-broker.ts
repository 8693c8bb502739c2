/**
 * Our broker under the peer section's workload (peer-system.ts runs the real systems'): the demo's
 * own processes through runMode, 3 consumers, the seed's keyspace.
 */
import type { Mode } from '@state-divergence/protocol';
import { demoRun, measuredRun } from './demo.js';
import { type LatencyPoint, type RampStep } from './peer-figures.js';

/**
 * One ramp step: `rate` for `seconds` to 3 consumers. The demo always has a fault: here the last
 * consumer's stall comes after publishing has ended, so it drops nothing and every consumer counts.
 */
export async function brokerRampStep(mode: Mode, rate: number, seconds: number): Promise<RampStep> {
  // Five phases of half `seconds`; publishing over the first two, the stall in the fourth.
  const phase = seconds / 2;
  const result = await demoRun(mode, {
    consumers: 3,
    rate,
    duration: phase,
    publishUntil: seconds,
    stall: [`consumer-3@${3 * phase}-${3.5 * phase}`],
  });
  const queues = result.consumers.map((c) => result.broker?.subscribers[c.name]);
  const dropped = queues.reduce((sum, q) => sum + (q ? q.dropped + q.lags + (q.backfills ?? 0) : 1), 0);
  return { rate, achievedRatio: result.publisher.achievedRate / rate, dropped };
}

/**
 * `rate` to 3 consumers with the demo's default stall (the last consumer over [phase, 3 × phase)):
 * the healthy consumers' publish→apply before and in it (outcome.ts's windows), the broker's CPU per
 * event delivered over the same window (cpu-window.ts), its peak RSS over its life.
 */
export async function brokerLatency(mode: Mode, rate: number, phase: number): Promise<LatencyPoint> {
  const { result, cpu } = await measuredRun(mode, { consumers: 3, rate, duration: phase });
  const broker = result.processes.find((p) => p.role === 'broker');
  const percentiles = (s: typeof result.healthyInStall) => (s === null ? null : { p50: s.p50, p99: s.p99 });
  return {
    before: percentiles(result.healthyBeforeStall),
    during: percentiles(result.healthyInStall),
    cpuMicrosPerDelivery: cpu?.broker ?? null,
    peakRssMiB: broker === undefined ? null : broker.maxRssKb / 1024,
  };
}
