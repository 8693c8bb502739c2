import { normalizeOptions, type RawOptions } from '@state-divergence/orchestrator';
import type { Mode } from '@state-divergence/protocol';

/** The fault flags a schedule is written with (the ones --nemesis random writes in). */
const FAULT_FLAGS = ['stall', 'slow', 'crash', 'partition', 'loss', 'delay'] as const;
type FaultFlag = (typeof FAULT_FLAGS)[number];

/**
 * A long run's faults: what `--nemesis random --seed S` draws for it, as written flags, without its
 * broker restarts. A long run is there for the processes that live through it, the broker above
 * all; the nemesis restarts the broker about once every 13 faults (every ~17 s at 2 s phases), so
 * no broker would live long enough to be judged. The short runs keep the restarts. The draw is the
 * orchestrator's own (normalizeOptions with --nemesis), and what is left is checked again by the
 * same validation, so the long run is a schedule a person could have written.
 */
export function longRunFaults(run: {
  mode: Mode;
  seed: number;
  duration: number;
  publishUntil: number;
  consumers: number;
}): string[] {
  const raw: RawOptions = {
    mode: run.mode,
    seed: run.seed,
    duration: run.duration,
    publishUntil: run.publishUntil,
    consumers: run.consumers,
  };
  const drawn = normalizeOptions({ ...raw, nemesis: 'random' }, { stderrIsTTY: false });
  const tokens = drawn.nemesis?.flags.split(' ').filter((t) => t.length > 0) ?? [];
  const written: Partial<Record<FaultFlag, string[]>> = {};
  const flags: string[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const flag = tokens[i]!.replace(/^--/, '') as FaultFlag;
    const value = tokens[i + 1]!;
    if (!FAULT_FLAGS.includes(flag))
      throw new Error(`the nemesis wrote ${tokens[i]} ${value}, not a fault flag the soak knows`);
    if (flag === 'crash' && value.startsWith('broker@')) continue;
    (written[flag] ??= []).push(value);
    flags.push(`--${flag}`, value);
  }
  normalizeOptions({ ...raw, ...written }, { stderrIsTTY: false });
  return flags;
}
