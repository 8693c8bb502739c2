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
 * --pool-size's default: one pool per core, so the pools share the machine evenly. Placeholder
 * until measured (see the commit that chose it).
 */
export function defaultPoolSize(healthy: number, cores: number): number {
  return Math.max(1, Math.ceil(healthy / cores));
}

/**
 * The pools of a run: of the consumers that start with it (`starting`: the late joiner is not one),
 * those the plan never faults (stall, slow, crash, a network fault) and that are ours (not in
 * `foreign`), in their order, `size` to a pool (null: the default).
 */
export function planPools(run: { starting: string[]; plan: RunPlan; foreign: string[]; size: number | null; cores: number }): string[][] {
  const faulted = faultedConsumers(run.plan);
  const healthy = run.starting.filter((name) => !faulted.includes(name) && !run.foreign.includes(name));
  return poolGroups(healthy, run.size ?? defaultPoolSize(healthy.length, run.cores));
}
