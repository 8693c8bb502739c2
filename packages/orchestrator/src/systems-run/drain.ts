import { wrongKeys, type Probe, type ProbeReport, type Versioned } from '@state-divergence/systems';
import type { SystemConsumer, SystemDrain } from './system-document.js';

/** How often a draining consumer's copy is compared with the authority. */
const DRAIN_POLL_MS = 250;
/** The least time the consumers get to drain after the last thaw, however short the phase. */
const MIN_DRAIN_MS = 2_000;
/**
 * A wrong copy that has not changed for this long is done: its verdict stands. Over six times the longest
 * pause between two applies of a catching-up etcd watcher (134-309 ms, 11,000-46,000 events, idle and
 * beside two CPU hogs: etcd sends an unsynced watcher 1,000 revisions per 100 ms sync), eight polls.
 */
const QUIET_MS = 2_000;
/**
 * The drain's bound, as a multiple of the publishing time: a consumer that lagged the whole of it and
 * applies at half the publishing rate still ends within it. etcd's watcher catches up at 5,800-9,000
 * changes/s after a stall at 2,000-4,000/s, twice the rate it acknowledged them at or more; nats-kv's at ~20,000/s.
 */
const BOUND_PER_PUBLISHING = 2;

/** The stopping rule's three figures, ms. */
export type DrainRule = Pick<SystemDrain, 'minMs' | 'quietMs' | 'boundMs'>;

/** When the drain ends, from the run's phase and publishing time (seconds). */
export function drainRule(duration: number, publishEndsAt: number): DrainRule {
  const minMs = Math.max(MIN_DRAIN_MS, 2 * duration * 1000);
  return {
    minMs,
    quietMs: QUIET_MS,
    boundMs: Math.max(minMs, Math.round(BOUND_PER_PUBLISHING * publishEndsAt * 1000)),
  };
}

/** One poll, as the stopping rule reads it: per consumer its wrong keys and how long its copy has not changed. */
export interface DrainPoll {
  elapsedMs: number;
  copies: readonly { wrong: number; quietForMs: number }[];
}

/**
 * The stopping rule: every copy equals the authority; or, past the minimum, no wrong copy has changed
 * for the quiet period (each verdict then stands); or the bound passed (a copy still changing then is
 * `catching-up`, not wrong). Null: poll again.
 */
export function drainEnd(poll: DrainPoll, rule: DrainRule): SystemDrain['ended'] | null {
  const wrong = poll.copies.filter((c) => c.wrong > 0);
  if (wrong.length === 0) return 'converged';
  if (poll.elapsedMs >= rule.minMs && wrong.every((c) => c.quietForMs >= rule.quietMs)) return 'quiet';
  if (poll.elapsedMs >= rule.boundMs) return 'bound';
  return null;
}

/**
 * When a report's copy last changed, wall-clock ms: its last apply or relist (a relist replaces the copy and
 * signals so); -Infinity: never. Other signals (an error, a reconnect) leave the copy as it was.
 */
export function lastChangeMs(report: Pick<ProbeReport, 'appliedAtMs' | 'signals'>): number {
  const relisted = report.signals.filter((s) => s.kind === 'relist').map((s) => s.atMs);
  return Math.max(report.appliedAtMs.at(-1) ?? -Infinity, ...relisted);
}

/** Changes applied in the second before `atMs` (appliedAtMs is in the order applied). */
export function appliedInLastSecond(report: Pick<ProbeReport, 'appliedAtMs'>, atMs: number): number {
  let count = 0;
  for (let i = report.appliedAtMs.length - 1; i >= 0 && report.appliedAtMs[i]! > atMs - 1000; i--) count += 1;
  return count;
}

/**
 * A judged consumer's state, with the drain's end: a wrong copy that changed within the quiet period
 * before the end (only the bound ends a drain so) is `catching-up`, a backlog still being applied.
 */
export function drainedState(
  state: SystemConsumer['state'],
  report: Pick<ProbeReport, 'appliedAtMs' | 'signals'>,
  drain: Pick<SystemDrain, 'quietMs'> & { endedAtMs: number },
): SystemConsumer['state'] {
  return state === 'wrong' && drain.endedAtMs - lastChangeMs(report) < drain.quietMs ? 'catching-up' : state;
}

/** Resolves at `at` (wall-clock ms) or as soon as `signal` aborts; then throws if it did. */
export async function until(at: number, signal: AbortSignal): Promise<void> {
  if (!signal.aborted)
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, at - Date.now()));
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done);
    });
  if (signal.aborted) throw signal.reason;
}

/**
 * Polls every consumer's copy (DRAIN_POLL_MS) until `drainEnd` says stop: a consumer that stays wrong
 * is given the minimum to prove it, one still applying its backlog up to the bound. `seen` hears each
 * poll's reports. Returns the last reports, in `names`' order, and how the drain went.
 */
export async function drain(
  names: readonly string[],
  probes: ReadonlyMap<string, Probe>,
  entries: ReadonlyMap<string, Versioned>,
  rule: DrainRule,
  signal: AbortSignal,
  seen?: (reports: ProbeReport[], wrong: number[]) => void,
): Promise<{ reports: Awaited<ReturnType<Probe['report']>>[]; drain: SystemDrain; endedAtMs: number }> {
  const startedMs = Date.now();
  for (;;) {
    // By name, in the run's order: a crashed consumer's fresh probe sits last in the map.
    const reports = await Promise.all(names.map((name) => probes.get(name)!.report()));
    const now = Date.now();
    const wrong = reports.map((r) => wrongKeys(r.copy, entries).length);
    seen?.(reports, wrong);
    const copies = reports.map((r, i) => ({ wrong: wrong[i]!, quietForMs: now - lastChangeMs(r) }));
    const ended = drainEnd({ elapsedMs: now - startedMs, copies }, rule);
    if (ended !== null) return { reports, drain: { ...rule, ms: now - startedMs, ended }, endedAtMs: now };
    await until(Math.min(startedMs + rule.boundMs, now + DRAIN_POLL_MS), signal);
  }
}
