import { faultedConsumers, type RunPlan } from './plan.js';

/**
 * Which consumers share a process (--pool-size). Only healthy ones may: SIGSTOP, SIGKILL and a
 * fault relay act on a whole process, so a faulted consumer, a late joiner and a foreign one each
 * run alone.
 */

/**
 * The healthy consumers in pools of `size`, in order (`pool-1` hosts the first `size`). A group of
 * one would be a lone consumer with a longer name: the last one, if it is left alone, runs as a
 * process of its own. `size` 1: no pool at all, one process per consumer as before pools existed.
 */
export function poolGroups(healthy: string[], size: number): string[][] {
  const groups: string[][] = [];
  for (let at = 0; at < healthy.length; at += size) groups.push(healthy.slice(at, at + size));
  return groups.filter((group) => group.length > 1);
}

/**
 * --pool-size's default: the healthy consumers in as many pools as there are cores but one, which
 * is left to the broker, the one process every event passes through: on 2 cores, one pool. Measured
 * on 2 cores, resync at 400/s, --duration 1, a quiet machine (load < 1.5), one pool against two
 * (one per core): consumer-side CPU per applied event 47 vs 55 µs at 64 consumers, 36 vs 45 at 128,
 * 52 vs 52 at 256, with the same healthy p99 (570 vs 491 ms, 3.29 vs 3.27 s, 6.6 vs 6.7 s) and
 * 80-160 MiB less memory; with other work on the machine (load ~2) two pools starved the publisher
 * (65 % of its rate at 256 consumers, 41 % at 512) where one kept it (100 %, 88 %). Against a
 * process per consumer, one pool at 64 consumers: 3.6 s of CPU instead of 16 s, 0.6 GiB instead of
 * 4.7, healthy p99 0.57 s instead of 4.0 s, no lag instead of 27.
 */
export function defaultPoolSize(healthy: number, cores: number): number {
  return Math.max(1, Math.ceil(healthy / Math.max(1, cores - 1)));
}

/**
 * The pools of a run: of the consumers that start with it (`starting`: the late joiner is not one),
 * those the plan never faults (stall, slow, crash, a network fault) and that are ours (not in
 * `foreign`), in their order, `size` to a pool (null: the default).
 */
export function planPools(run: {
  starting: string[];
  plan: RunPlan;
  foreign: string[];
  size: number | null;
  cores: number;
}): string[][] {
  const faulted = faultedConsumers(run.plan);
  const healthy = run.starting.filter((name) => !faulted.includes(name) && !run.foreign.includes(name));
  return poolGroups(healthy, run.size ?? defaultPoolSize(healthy.length, run.cores));
}
