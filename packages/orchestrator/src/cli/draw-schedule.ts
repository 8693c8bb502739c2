import { createPrng } from '@state-divergence/runtime';
import { BROKER, PUBLISHER, type Fault, type FaultKind } from '../model/faults.js';

/** What the draw may use of the run: nothing else, so the same (seed, space) always gives the same schedule. */
export interface DrawSpace {
  seed: number;
  /** Seconds per phase: every fault's length is drawn in phases, so a longer --duration stretches the schedule with the
   * run. */
  duration: number;
  /** The consumers a fault may hit (every consumer of the run but the late joiner), in consumer order. */
  targets: string[];
  /** A broker restart is allowed (not with --consumer-cmd: a foreign consumer is never told the broker was lost). */
  broker: boolean;
  /** Where fault windows may lie, seconds since publishing started: inside publishing. */
  window: { from: number; to: number };
}

/**
 * Faults drawn per phase of the window. 1.5: the seed's window (two phases) gets three, enough for two
 * faults to overlap on different targets; a 300 s window at 1 s phases gets 450, spread over all of it.
 */
export const FAULTS_PER_PHASE = 1.5;
/**
 * Most consumers one schedule faults. A faulted consumer runs in a process of its own (never pooled)
 * and a network-faulted one adds a relay: at 256 consumers, faulting them all would be 256 more
 * processes on 2 cores. Four are enough for every overlap the checker judges (who is wrong about what).
 */
export const MAX_FAULTED_CONSUMERS = 4;
/** Tries per fault: a draw the validation refuses (its target already faulted then, every consumer faulted at once, a
 * restart inside a broker outage) is drawn again, then given up. */
const TRIES = 8;
/** A window shorter than this is not drawn: a fault of a few ms measures the timers, not the system. */
const SHORTEST_S = 0.05;

/** How often each kind is drawn, and its length range in phases. */
const KINDS: Array<{ kind: FaultKind; broker?: true; weight: number; phases: [number, number] }> = [
  { kind: 'stall', weight: 3, phases: [0.2, 1.5] },
  { kind: 'slow', weight: 2, phases: [0.5, 2] },
  { kind: 'crash', weight: 2, phases: [0.2, 1.5] },
  { kind: 'crash', broker: true, weight: 1, phases: [0.2, 1] },
  { kind: 'partition', weight: 2, phases: [0.2, 1.5] },
  { kind: 'loss', weight: 2, phases: [0.5, 2] },
  { kind: 'delay', weight: 1, phases: [0.5, 2] },
];

/** Times on a 10 ms grid: the printed flags read well and parse back to the very same numbers. */
const centis = (seconds: number): number => Math.round(seconds * 100) / 100;

/** A uniform draw in [0, 1) from the run's own generator (the runtime's mulberry32, as the workload's). */
type Draw = () => number;
const between = (draw: Draw, lo: number, hi: number): number => lo + draw() * (hi - lo);
const integer = (draw: Draw, lo: number, hi: number): number => Math.floor(between(draw, lo, hi + 1));
const pick = <T>(draw: Draw, items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;

/** Its parameter, drawn: a slow's share, a loss's rate (bursty half the time), a delay (jittered half the time). */
function parameter(draw: Draw, kind: FaultKind): Partial<Fault> {
  if (kind === 'slow') return { percent: integer(draw, 20, 90) };
  if (kind === 'loss') {
    const lossPct = integer(draw, 5, 50);
    return draw() < 0.5 ? { lossPct } : { lossPct, correlationPct: integer(draw, 25, 90) };
  }
  if (kind === 'delay') {
    const delayMs = integer(draw, 5, 200);
    return draw() < 0.5 ? { delayMs } : { delayMs, jitterMs: integer(draw, 1, Math.floor(delayMs / 2)) };
  }
  return {};
}

/**
 * A seeded random schedule (Jepsen's generated nemesis), a pure function of its arguments. The window
 * is cut into one slot per fault so faults spread over all of it; each fault starts in its slot, its
 * kind, target, length and parameter drawn. `accepts` is the written schedule's own validation: a
 * draw it refuses is drawn again (TRIES times), so every schedule this returns is one a person could
 * have written. Times on a 10 ms grid, in start order.
 *
 * Faults are drawn in start order, so the only ones a new fault can clash with are those still running
 * when it starts (one fault per target at a time, every consumer at once, a restart inside a broker
 * outage, its restart where the outage starts included) and the first (the late joiner joins at it): `accepts` is given
 * those and the new one, which
 * keeps the draw linear in the window (a 1,800 s soak at 1 s phases draws 2,700). The caller checks the
 * whole schedule once more at the end.
 */
export function drawSchedule(space: DrawSpace, accepts: (faults: Fault[]) => boolean): Fault[] {
  // Not the workload's own sequence (the publisher seeds mulberry32 with --seed too): a fault's time must not track
  // which keys are written first.
  const next = createPrng((space.seed ^ 0x6e656d65) >>> 0);
  const draw: Draw = () => next() / 0x1_0000_0000;
  const { from: start, to: end } = space.window;
  const consumers = [...space.targets];
  // Which consumers this schedule may fault: a partial shuffle, then back in consumer order.
  for (let i = 0; i < Math.min(consumers.length, MAX_FAULTED_CONSUMERS); i++) {
    const j = i + Math.floor(draw() * (consumers.length - i));
    [consumers[i], consumers[j]] = [consumers[j]!, consumers[i]!];
  }
  const faultable = consumers
    .slice(0, MAX_FAULTED_CONSUMERS)
    .sort((a, b) => space.targets.indexOf(a) - space.targets.indexOf(b));
  const kinds = KINDS.filter((k) => (k.broker ? space.broker : faultable.length > 0));
  const weights = kinds.reduce((sum, k) => sum + k.weight, 0);
  const drawKind = () => {
    let r = draw() * weights;
    return kinds.find((k) => (r -= k.weight) < 0) ?? kinds.at(-1)!;
  };
  const count = Math.max(1, Math.round((FAULTS_PER_PHASE * (end - start)) / space.duration));
  const slot = (end - start) / count;
  const faults: Fault[] = [];
  for (let i = 0; i < count && kinds.length > 0; i++) {
    for (let tries = 0; tries < TRIES; tries++) {
      const shape = drawKind();
      const from = centis(between(draw, start + i * slot, start + (i + 1) * slot));
      const to = centis(Math.min(end, from + space.duration * between(draw, ...shape.phases)));
      const consumer = shape.broker
        ? BROKER
        : pick(
            draw,
            shape.kind === 'partition' || shape.kind === 'loss' || shape.kind === 'delay'
              ? [...faultable, PUBLISHER]
              : faultable,
          );
      const fault: Fault = { kind: shape.kind, consumer, from, to, ...parameter(draw, shape.kind) };
      if (from < start || to - from < SHORTEST_S) continue;
      const running = faults.filter((f, n) => n === 0 || f.to >= from);
      if (accepts([...running, fault])) {
        faults.push(fault);
        break;
      }
    }
  }
  return faults.sort((a, b) => a.from - b.from || a.to - b.to);
}
