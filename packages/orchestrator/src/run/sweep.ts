import { sweepPoint, type SweepPoint } from '../check/sweep-point.js';
import type { Options } from '../model/options.js';
import { runMode, type RunContext } from './run-mode.js';

/** Runs the lossy mode once per point (each a complete run with fresh processes), reporting each point as it lands. */
export async function sweep(runs: Options[], context: RunContext & { onPoint: (point: SweepPoint) => void }): Promise<SweepPoint[]> {
  const points: SweepPoint[] = [];
  for (const options of runs) {
    const point = sweepPoint(await runMode('lossy', options, context), options);
    points.push(point);
    context.onPoint(point);
  }
  return points;
}
