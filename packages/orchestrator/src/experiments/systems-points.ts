import type { EdgePrediction, IdiomName } from '@state-divergence/systems';
import { expectedWrong, type OffsetRange } from '../check/expectation.js';
import type { Acknowledged } from '../systems-run/publish.js';
import type { SystemRun } from '../systems-run/system-document.js';

/**
 * The systems experiment's points (pure: a run against a real system in, a point out): one
 * system × idiom stalled for `stallSeconds` at `rate`, its stalled consumer measured.
 */
export interface SystemsPoint {
  system: string;
  idiom: IdiomName;
  stallSeconds: number;
  rate: number;
  /** A grid cell, or one of the edge's bisection runs. */
  role: 'grid' | 'edge';
  /** Keys the stalled consumer has wrong at the end, once its copy had stopped changing. */
  wrong: number;
  /** Keys it was still behind on when the drain's bound ended it still applying (its state `catching-up`); else 0. */
  catchingUp: number;
  /**
   * What the closed form (check/expectation.ts) expects from the writes it never applied after its
   * last relist, in the system's order: the damage of what it missed, were nothing to repair it.
   */
  expectedWrong: number;
  /** Writes it missed so (after its last relist, never applied). */
  missed: number;
  /** Of its wrong keys, those the evidence does not explain (each a finding; the run's own count). */
  unexplained: number;
  /** Its signals by kind, `disconnect 1, reconnect 1`; `none`. */
  signals: string;
  /** Where the stall was held at the thaw: bytes in its receive queue and the server's send queue (null: not seen). */
  heldReceive: number;
  heldServerSend: number | null;
  /** Its connections the server had closed by then (cut off). */
  closedByServer: number;
  /** Writes acknowledged per second during the stall: a stall that slowed the publisher shows here. */
  stallRatePerSec: number;
}

/** The writes `applied` never reached, after the last relist (which brought the copy up to date), as offsets in the
 * system's order (1 = its first acknowledged write), merged into ranges; and how many writes there were. */
export function missedRanges(
  bySeq: ReadonlyMap<number, Acknowledged>,
  applied: readonly number[],
  lastRelistMs: number,
): { ranges: OffsetRange[]; published: number; missed: number } {
  const reached = new Set(applied);
  const ordered = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const ranges: OffsetRange[] = [];
  let missed = 0;
  ordered.forEach((write, i) => {
    if (reached.has(write.seq) || write.atMs <= lastRelistMs) return;
    missed += 1;
    const offset = i + 1;
    const last = ranges.at(-1);
    if (last !== undefined && last[1] === offset - 1) last[1] = offset;
    else ranges.push([offset, offset]);
  });
  return { ranges, published: ordered.length, missed };
}

/** `disconnect 1, reconnect 1` from a consumer's signals; `none`. */
export function signalCounts(signals: readonly { kind: string }[]): string {
  if (signals.length === 0) return 'none';
  const counts = new Map<string, number>();
  for (const { kind } of signals) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${kind} ${n}`).join(', ');
}

/** One run's point: its (first) stalled consumer, the writes it missed, where the stall was held. */
export function systemsPoint(
  run: SystemRun,
  evidence: { applied: readonly number[]; bySeq: ReadonlyMap<number, Acknowledged> },
  settings: Pick<SystemsPoint, 'stallSeconds' | 'rate' | 'role'>,
  keys: number,
): SystemsPoint {
  const stall = run.stalls[0];
  const consumer = run.consumers.find((c) => c.name === stall?.consumer);
  if (stall === undefined || consumer === undefined) throw new Error(`the ${run.system} run has no stalled consumer`);
  const relists = consumer.signals.filter((s) => s.kind === 'relist').map((s) => s.at * 1000);
  const { ranges, published, missed } = missedRanges(evidence.bySeq, evidence.applied, Math.max(-1, ...relists));
  return {
    system: run.system,
    idiom: run.idiom as IdiomName,
    ...settings,
    wrong: consumer.state === 'wrong' ? consumer.wrongKeys.length : 0,
    catchingUp: consumer.state === 'catching-up' ? consumer.wrongKeys.length : 0,
    expectedWrong: expectedWrong(keys, published, ranges),
    missed,
    unexplained: consumer.unexplained.length,
    signals: signalCounts(consumer.signals),
    heldReceive: stall.heldReceiveQueue,
    heldServerSend: stall.heldServerSendQueue,
    closedByServer: stall.heldClosedByServer,
    stallRatePerSec: stall.ratePerSec,
  };
}

/** The bisected edge of one system's naive idiom at one rate, beside what its own limit predicts. */
export interface SystemsEdge {
  system: string;
  rate: number;
  /** The longest stall tried: an edge beyond it is "none up to". */
  upTo: number;
  /** The shortest stall found to end wrong, to `resolution`; null: none up to `upTo`. */
  edgeSeconds: number | null;
  /** The longest stall found to end correct below it (0 when none was). */
  correctBelow: number;
  /** Runs the bisection added to the grid's. */
  runs: number;
  prediction: EdgePrediction | null;
  /** edgeSeconds within 25 % of the prediction; null when either is missing. */
  withinQuarter: boolean | null;
}

/**
 * Bisects the stall between `correct` (a stall known to end correct) and `wrong` (one known to end
 * wrong) until they are within `resolution`; `endsWrong` runs one stall. Returns the bracket and the
 * stalls it tried, in order. A monotone edge is assumed (a longer stall holds everything a shorter
 * one did); a point that breaks it is kept in `tried` for the reader.
 */
export async function bisectStall(
  bracket: { correct: number; wrong: number },
  resolution: number,
  endsWrong: (stallSeconds: number) => Promise<boolean>,
): Promise<{ correct: number; wrong: number; tried: number[] }> {
  let { correct, wrong } = bracket;
  const tried: number[] = [];
  while (wrong - correct > resolution) {
    // A twentieth of a second: stall windows are given in seconds, and finer means nothing here.
    const middle = Math.round(((correct + wrong) / 2) * 20) / 20;
    if (middle <= correct || middle >= wrong) break;
    tried.push(middle);
    if (await endsWrong(middle)) wrong = middle;
    else correct = middle;
  }
  return { correct, wrong, tried };
}

/**
 * Where the grid puts the edge at `rate`: the shortest grid stall that ended wrong, and the longest
 * below it that ended correct (0: none did, a stall of nothing is correct). Null: every stall ended
 * correct.
 */
export function gridBracket(points: readonly SystemsPoint[]): { correct: number; wrong: number } | null {
  const wrong = points.filter((p) => p.wrong > 0).map((p) => p.stallSeconds);
  if (wrong.length === 0) return null;
  const first = Math.min(...wrong);
  // A point still catching up is not known correct: it brackets nothing.
  const correct = points
    .filter((p) => p.wrong === 0 && p.catchingUp === 0 && p.stallSeconds < first)
    .map((p) => p.stallSeconds);
  return { correct: Math.max(0, ...correct), wrong: first };
}

/**
 * The figures a prediction takes: from the points at its rate, the acknowledged rate in the stalls
 * and the bytes held per second of the shortest stall (before a buffer can have filled); from all
 * of the system's points (`buffers`: the longest stalls at the highest rate fill them), the most
 * bytes the kernel held.
 */
export function edgeFigures(
  points: readonly SystemsPoint[],
  buffers: readonly SystemsPoint[],
): {
  rate: number;
  bytesPerSecond: number | null;
  bufferBytes: number | null;
} {
  const held = (p: SystemsPoint) => p.heldReceive + (p.heldServerSend ?? 0);
  const rates = points.map((p) => p.stallRatePerSec).filter((r) => r > 0);
  const rate = rates.length === 0 ? 0 : Math.round(rates.reduce((a, b) => a + b, 0) / rates.length);
  const shortest = [...points].sort((a, b) => a.stallSeconds - b.stallSeconds)[0];
  const bytesPerSecond =
    shortest === undefined || held(shortest) === 0 ? null : Math.round(held(shortest) / shortest.stallSeconds);
  const bufferBytes = buffers.length === 0 ? null : Math.max(...buffers.map(held));
  return { rate, bytesPerSecond, bufferBytes };
}

export const withinQuarter = (measured: number | null, predicted: number | null | undefined): boolean | null =>
  measured === null || predicted === null || predicted === undefined
    ? null
    : Math.abs(measured - predicted) <= 0.25 * predicted;
