import type { ModeResult } from '../model/run-types.js';
import type { Options } from '../model/options.js';
import { runMode, type RunContext } from '../run/run-mode.js';

/**
 * Runs each item's one mode (lossy for a sweep and most experiments; the
 * restart experiment compares modes) once per item, each a complete run with
 * fresh processes, one after another, measures each result as it lands and
 * reports the point: `sweep` and `experiments` are both series.
 */
export async function runSeries<I extends { options: Options }, P>(
  items: I[],
  context: RunContext & { measure: (result: ModeResult, item: I) => P; onPoint: (point: P, item: I) => void },
): Promise<P[]> {
  const points: P[] = [];
  for (const item of items) {
    const [mode, ...more] = item.options.modes;
    if (mode === undefined || more.length > 0)
      throw new Error(`a series runs one mode per item, got ${item.options.modes.join(', ')}`);
    const point = context.measure(await runMode(mode, item.options, context), item);
    points.push(point);
    context.onPoint(point, item);
  }
  return points;
}
