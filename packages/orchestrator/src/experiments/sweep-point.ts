import type { ModeResult } from '../model/run-types.js';

export interface SweepPoint {
  rate: number;
  keys: number;
  published: number;
  /** Events the broker dropped for the faulted consumer(s), averaged. */
  dropped: number;
  wrong: number;
  wrongFraction: number;
  /**
   * What the run report expects them to end wrong about (check/expectation.ts
   * over what each of them missed, missed.ts), averaged, as a fraction of the
   * keys; null when what they missed is unknown (the run's verdict is then unknown).
   */
  expectedFraction: number | null;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * One point of a sweep, from one lossy run: the faulted consumers' damage beside
 * the expectation the run's own report gives for what they missed, whatever the
 * shape of the run (publishing ending with the stall or going on after it).
 */
export function sweepPoint(result: ModeResult, settings: { rate: number; keys: number }): SweepPoint {
  const faulted = result.consumers.filter((c) => c.faulted);
  const dropped = mean(faulted.map((c) => result.broker?.subscribers[c.name]?.dropped ?? 0));
  const wrong = mean(faulted.map((c) => c.wrongKeys.length));
  const expected = faulted.map((c) => c.expectedWrong);
  const known = expected.every((e): e is number => e !== null);
  return {
    rate: settings.rate,
    keys: settings.keys,
    published: result.published,
    dropped: Math.round(dropped),
    wrong: Math.round(wrong),
    wrongFraction: round3(wrong / settings.keys),
    expectedFraction: known ? round3(mean(expected) / settings.keys) : null,
  };
}
