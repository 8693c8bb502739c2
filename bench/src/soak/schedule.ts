import type { Mode } from '@state-divergence/protocol';
import { longRunFaults } from './long-faults.js';

/** The soak's shape: how long, from which seed, how its time is split between long and short runs. */
export interface SoakDesign {
  /** No run starts after this many minutes (null: no time limit, `runs` ends it). */
  minutes: number | null;
  /** At most this many runs (null: as many as `minutes` allows). */
  runs: number | null;
  /** The first run's seed; each run takes the next, so any run can be repeated alone from its line. */
  seed: number;
  /** A long run's length, minutes (0: short runs only). One long run opens each cycle. */
  longMinutes: number;
  /** Short runs after each long one. */
  shortRuns: number;
  /** --duration of a short run, seconds per phase (a long one runs 2 s phases). */
  shortDuration: number;
  /** Go on after a failing run (--keep-going) instead of stopping there. */
  keepGoing: boolean;
}

/** One orchestrator invocation of the soak: `npx orchestrator --mode <mode> <flags>` reruns it. */
export interface SoakRun {
  index: number;
  kind: 'long' | 'short';
  mode: Mode;
  seed: number;
  flags: string[];
  /** Its phases' length, s (start-up and the report come on top). */
  plannedSeconds: number;
  /** Where its faults came from, in words. */
  faults: string;
}

/** Long runs take the modes in this order: the durable broker first (the log, back-fills, the most state); short runs
 * take every mode in turn. */
const LONG_MODES: Mode[] = ['durable', 'resync', 'lossy', 'lossless'];
const SHORT_MODES: Mode[] = ['lossy', 'lossless', 'resync', 'durable'];
/** A long run's phases: long enough for a restarted broker or consumer to settle between faults. */
export const LONG_DURATION = 2;
/**
 * A durable long run keeps this many events in its log (--retention): at 400/s about 50 s of them.
 * Unbounded, the log (and its mapped pages, which count in the broker's RSS) would grow with the run
 * by design; bounded, anything that still grows is not the log's retention doing its job.
 */
export const LONG_RETENTION = 20_000;
/**
 * A long run's consumers: the nemesis faults at most four, so two are never faulted and share a
 * pool process that lives through the whole run, as the broker and the publisher do.
 */
export const LONG_CONSUMERS = 6;

/** A run that publishes for `publishSeconds` lasts two phases more (recovering, quiesced). */
const phasesAfterPublishing = (duration: number) => 2 * duration;

/** The faults: drawn by the orchestrator's own nemesis from the run's seed, printed by it on stderr as the flags that
 * repeat them. */
const nemesis = (seed: number) => ['--nemesis', 'random', '--seed', String(seed)];

export function longRun(index: number, seed: number, cycle: number, minutes: number): SoakRun {
  const mode = LONG_MODES[cycle % LONG_MODES.length]!;
  const publishUntil = Math.max(4 * LONG_DURATION, Math.round(minutes * 60 - phasesAfterPublishing(LONG_DURATION)));
  const retention = mode === 'durable' ? ['--retention', String(LONG_RETENTION)] : [];
  const shape = { mode, seed, duration: LONG_DURATION, publishUntil, consumers: LONG_CONSUMERS };
  return {
    index,
    kind: 'long',
    mode,
    seed,
    flags: [
      '--consumers',
      String(LONG_CONSUMERS),
      '--duration',
      String(LONG_DURATION),
      '--publish-until',
      String(publishUntil),
      '--seed',
      String(seed),
      ...retention,
      ...longRunFaults(shape),
    ],
    plannedSeconds: publishUntil + phasesAfterPublishing(LONG_DURATION),
    faults: `--nemesis random --seed ${seed}'s draw for it, its broker restarts left out (written as flags)`,
  };
}

export function shortRun(index: number, seed: number, shortIndex: number, duration: number): SoakRun {
  const mode = SHORT_MODES[shortIndex % SHORT_MODES.length]!;
  // Without --publish-until the nemesis draws inside the seed's window [d, 3d) and publishing ends with the last fault.
  return {
    index,
    kind: 'short',
    mode,
    seed,
    flags: ['--duration', String(duration), ...nemesis(seed)],
    plannedSeconds: 5 * duration,
    faults: `--nemesis random --seed ${seed}`,
  };
}

/**
 * The next run, given how many have run and how much time is left: a cycle is one long run (if one
 * still fits before the deadline) and `shortRuns` short ones; once a long run no longer fits, short
 * ones fill the time. Null once the time is up: a run is never started after the deadline.
 */
export function nextRun(design: SoakDesign, done: SoakRun[], secondsLeft: number): SoakRun | null {
  if (secondsLeft <= 0) return null;
  const index = done.length + 1;
  const seed = design.seed + done.length;
  const longs = done.filter((r) => r.kind === 'long').length;
  const shortsSinceLong = done.length - 1 - done.map((r) => r.kind).lastIndexOf('long');
  const longDue = design.longMinutes > 0 && (longs === 0 || shortsSinceLong >= design.shortRuns);
  if (longDue && secondsLeft >= design.longMinutes * 60) return longRun(index, seed, longs, design.longMinutes);
  const shorts = done.length - longs;
  return shortRun(index, seed, shorts, design.shortDuration);
}
