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
 * How deep, in time, each broker queue must be for its consumers to share a process by default:
 * capacity / rate. A pool's event loop serves every member's reads and collects every member's
 * garbage, so it pauses longer than a lone consumer's, and a queue that holds less than a pause
 * overflows for every member at once. Measured on 2 cores at the seed's firehose (12 keys, 3
 * consumers, 16,384-byte datagrams, lossy, the default 512-event queue): at 20,000/s (25.6 ms of
 * queue) the two healthy consumers in one pool were dropped for in 3 of 5 runs (4 to 1,382
 * events each), a process each in 0 of 5; at 15,000/s (34 ms) and 10,000/s (51 ms), pooled, in 0
 * of 4 each. 50 ms keeps a margin over the shallowest depth that held.
 */
export const MIN_POOLED_QUEUE_MS = 50;

/**
 * --pool-size's default. A process each when a queue holds less than MIN_POOLED_QUEUE_MS of
 * events (the firehose: few consumers, each busy). Otherwise the healthy consumers in as many
 * pools as there are cores but one, which is left to the broker, the one process every event
 * passes through: on 2 cores, one pool. Measured on 2 cores, resync at 400/s, --duration 1, a
 * quiet machine (load < 1.5), one pool against two (one per core): consumer-side CPU per applied
 * event 47 vs 55 µs at 64 consumers, 36 vs 45 at 128, 52 vs 52 at 256, with the same healthy p99
 * (570 vs 491 ms, 3.29 vs 3.27 s, 6.6 vs 6.7 s) and 80-160 MiB less memory; with other work on the
 * machine (load ~2) two pools starved the publisher (65 % of its rate at 256 consumers, 41 % at
 * 512) where one kept it (100 %, 88 %). Against a process per consumer, one pool at 64 consumers:
 * 3.6 s of CPU instead of 16 s, 0.6 GiB instead of 4.7, healthy p99 0.57 s instead of 4.0 s, no
 * lag instead of 27.
 */
export function defaultPoolSize(healthy: number, cores: number, queueMs: number): number {
  if (queueMs < MIN_POOLED_QUEUE_MS) return 1;
  return Math.max(1, Math.ceil(healthy / Math.max(1, cores - 1)));
}

/** How long a broker queue of `capacity` events lasts at `rate` events a second, ms. */
export const queueDepthMs = (capacity: number, rate: number): number => (capacity / rate) * 1000;

/**
 * The pools of a run: of the consumers that start with it (`starting`: the late joiner is not one),
 * those the plan never faults (stall, slow, crash, a network fault) and that are ours (not in
 * `foreign`), in their order, `size` to a pool (null: the default, given how many ms of events
 * a broker queue holds: `queueMs`).
 */
export function planPools(run: { starting: string[]; plan: RunPlan; foreign: string[]; size: number | null; cores: number; queueMs: number }): string[][] {
  const faulted = faultedConsumers(run.plan);
  const healthy = run.starting.filter((name) => !faulted.includes(name) && !run.foreign.includes(name));
  return poolGroups(healthy, run.size ?? defaultPoolSize(healthy.length, run.cores, run.queueMs));
}
