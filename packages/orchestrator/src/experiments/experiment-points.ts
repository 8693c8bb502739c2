import type { Mode } from '@state-divergence/protocol';
import { overlaps } from '../check/damage.js';
import { expectedWrongUnrounded } from '../check/expectation.js';
import { worstP99 } from '../check/latency.js';
import type { ModeResult } from '../model/run-types.js';

/**
 * The seed's "How to extend", each as points measured from lossy runs (pure:
 * a ModeResult in, a point out). The first faulted consumer is the one measured.
 */

export type Regime = 'silence' | 'churn';
/** Each point's expectation is the run report's (null: what the consumer missed is unknown, and so is the run's
 * verdict). */
export interface ChurnPoint {
  keys: number;
  rate: number;
  regime: Regime;
  queueCapacity: number;
  published: number;
  dropped: number;
  wrongFraction: number;
  expectedFraction: number | null;
}
export interface QueuePoint {
  capacity: number;
  rate: number;
  firstDropMs: number | null;
  dropped: number;
  wrong: number;
  expectedWrong: number | null;
}
export interface OverlapPoint {
  windows: 'same' | 'staggered';
  jaccard: number | null;
  both: number;
  onlyOne: number;
  wrong: [number, number];
}
export interface HotnessPoint {
  shape: string;
  deciles: number[];
  survival: Array<number | null>;
  wrong: number;
  expectedWrong: number | null;
}
/**
 * The broker killed and started again under one mode with this many consumers: keys wrong at
 * the end over every consumer (null: a verdict is unknown), bytes that brought the consumers
 * back, ms from the broker's return until every consumer was correct (null: one never was, or
 * it is unknown).
 */
export interface RestartPoint {
  mode: Mode;
  consumers: number;
  wrong: number | null;
  reconnectBytes: number;
  convergedMs: number | null;
}
/**
 * One consumer's link faulted under one mode: a partition of `size` seconds, or `size` % loss.
 * `wrong`: keys wrong at the end over every consumer (null: a verdict is unknown); `p99Ms`: the
 * worst healthy consumer's publish-to-apply p99, `faultedP99Ms` the faulted one's, each over every
 * event it applied in the run (so the faulted one's includes its catch-up after the fault; null:
 * it applied none); `staleMs`: the faulted consumer's stale time by its own clock, no frame from the
 * broker for over --stale-after ms (null: its mode does not track it).
 */
export interface NetworkPoint {
  fault: 'partition' | 'loss';
  size: number;
  mode: Mode;
  wrong: number | null;
  p99Ms: number | null;
  faultedP99Ms: number | null;
  staleMs: number | null;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * The churn experiment's queue: an eighth of a second of the rate. Slack enough
 * that healthy consumers on 2 cores never drop (a 32-event queue at 2400/s made
 * them drop), small enough that every point's stalled consumer does.
 */
export const queueFor = (rate: number): number => Math.max(32, Math.round(rate / 8));

function measured(result: ModeResult) {
  const check = result.consumers.find((c) => c.faulted);
  if (check === undefined) throw new Error(`the ${result.mode} run has no faulted consumer to measure`);
  const queue = result.broker?.subscribers[check.name];
  return { check, queue, name: check.name, expectedWrong: check.expectedWrong };
}

export function churnPoint(
  result: ModeResult,
  settings: { keys: number; rate: number; regime: Regime; queueCapacity: number },
): ChurnPoint {
  const { check, queue, expectedWrong } = measured(result);
  return {
    ...settings,
    published: result.published,
    dropped: queue?.dropped ?? 0,
    wrongFraction: round3(check.wrongKeys.length / settings.keys),
    expectedFraction: expectedWrong === null ? null : round3(expectedWrong / settings.keys),
  };
}

/**
 * Time from SIGSTOP to the first drop. The publisher paces exactly (at time t it
 * has published floor(rate × t) changes), so the first dropped offset o was
 * published at startedAt + o / rate; the stall began when the `stalled` phase did.
 */
export function queuePoint(result: ModeResult, settings: { capacity: number; rate: number }): QueuePoint {
  const { check, queue, expectedWrong } = measured(result);
  const first = queue?.droppedRanges[0]?.[0];
  const { publishingStartedAt, stallWindow } = result.timing;
  const firstDropMs =
    first === undefined ? null : Math.round(publishingStartedAt + (first * 1000) / settings.rate - stallWindow.from);
  return { ...settings, firstDropMs, dropped: queue?.dropped ?? 0, wrong: check.wrongKeys.length, expectedWrong };
}

export function overlapPoint(result: ModeResult, windows: OverlapPoint['windows']): OverlapPoint {
  // The experiment's pair is its two stalled consumers, whether or not both ended wrong
  // (the run's faultedOverlap compares only the wrong ones).
  const [pair] = overlaps(result.consumers.filter((c) => c.faulted));
  if (pair === undefined) throw new Error('the overlap experiment needs two faulted consumers');
  return {
    windows,
    jaccard: pair.jaccard,
    both: pair.both,
    onlyOne: pair.onlyA + pair.onlyB,
    wrong: [pair.both + pair.onlyA, pair.both + pair.onlyB],
  };
}

/** Survival per decile: of the keys that missed at least one update, the fraction still wrong (null: none missed). */
export function hotnessPoint(result: ModeResult, shape: string): HotnessPoint {
  const { check, expectedWrong } = measured(result);
  const wrong = check.wrongByDecile;
  const survival = check.survivalByDecile ?? wrong.map(() => null);
  return { shape, deciles: wrong, survival, wrong: check.wrongKeys.length, expectedWrong };
}

/**
 * The run's own figures (outcome.ts), read the same way as its report: bytes are every
 * consumer's resumes' catchUpBytes (cost.reconnectBytes: frames from the WELCOME until the
 * stream reached its head, so exactly what catching up cost, whatever brought it back: a
 * relist's snapshot, a replay; nothing for `latest`). The broker's report, the sender's side,
 * cannot give it: it does not count a snapshot sent at subscribe, and it sums the rest per
 * name over its incarnation, later lags and back-fills included. Time: every consumer must end
 * correct; then the last one's "correct again" after the broker was back (recovery's
 * convergedAfterThawMs, counted from the broker's return when no fault of its own ended later).
 */
export function restartPoint(result: ModeResult, consumers: number): RestartPoint {
  if (result.brokerOutages.length === 0) throw new Error(`the ${result.mode} run has no broker restart to measure`);
  const checks = result.consumers;
  const wrong = checks.some((c) => c.verdict === 'unknown') ? null : result.cost.wrongAtEnd;
  const correctAgain = checks.map((c) => c.recovery?.convergedAfterThawMs ?? null);
  const convergedMs =
    wrong === 0 && correctAgain.every((ms) => ms !== null) ? Math.round(Math.max(...(correctAgain as number[]))) : null;
  return { mode: result.mode, consumers, wrong, reconnectBytes: result.cost.reconnectBytes, convergedMs };
}

export function networkPoint(
  result: ModeResult,
  settings: Pick<NetworkPoint, 'fault' | 'size' | 'mode'>,
): NetworkPoint {
  const { check: faulted } = measured(result);
  const checks = result.consumers;
  const wrong = checks.some((c) => c.verdict === 'unknown') ? null : result.cost.wrongAtEnd;
  return {
    ...settings,
    wrong,
    p99Ms: worstP99(checks.filter((c) => !c.faulted).map((c) => c.latency?.all?.p99)),
    faultedP99Ms: faulted.latency?.all?.p99 ?? null,
    staleMs: faulted.stale?.staleMs ?? null,
  };
}

/**
 * Where the expectation puts the churn regime's peak: the run report's
 * expectation (expectation.ts) for D dropped changes followed by A accepted
 * ones, i.e. the missed range [1, D] out of D + A published, where a key ends
 * wrong iff it is written during the D and not in the A: (1 − (1 − p)^D)(1 − p)^A.
 * Both grow with the rate (D ≈ rate × stall − what the queue and transport
 * absorb, A = rate × the churn after the gap), so damage first grows, then
 * falls. Fewer than one dropped change counts as none, as in a report.
 * Returns the rate on the grid with the largest expected wrong fraction.
 */
export function churnPeak(
  keys: number,
  model: { stallSeconds: number; afterSeconds: number; absorbed: (rate: number) => number },
  rates: number[],
): { rate: number; expectedFraction: number } {
  let best = { rate: rates[0] ?? 0, expectedFraction: 0 };
  for (const rate of rates) {
    const dropped = Math.max(0, rate * model.stallSeconds - model.absorbed(rate));
    const after = rate * model.afterSeconds;
    // Unrounded: the fraction is rounded once, to three places (a report's tenth of a key would round it twice).
    const expected = expectedWrongUnrounded(keys, dropped + after, [[1, dropped]]) / keys;
    if (expected > best.expectedFraction) best = { rate, expectedFraction: round3(expected) };
  }
  return best;
}
