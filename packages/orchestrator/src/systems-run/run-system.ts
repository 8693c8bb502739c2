import {
  Authority,
  kernelQueues,
  knobValues,
  runPrefix,
  startProbe,
  wrongKeys,
  type IdiomName,
  type KernelQueues,
  type Probe,
  type ProbeReport,
  type TargetSystem,
  type Writer,
} from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import type { Fault } from '../model/faults.js';
import { scheduleCompactions } from './compaction.js';
import { judgeConsumer, latestWrites } from './judge.js';
import { pollProgress } from './progress-poll.js';
import { knobsInEffect, knobsOf } from './knob-flags.js';
import { publish, type Published } from './publish.js';
import type { SystemConsumer, SystemRun, SystemStall } from './system-document.js';
import type { SystemRunOptions } from './system-options.js';
import { serverFor, type RunServer } from './system-server.js';
import type { SystemRunObserver } from './system-progress.js';
import { workload } from './workload.js';

/** How often a draining consumer's copy is compared with the authority. */
const DRAIN_POLL_MS = 250;
/** The least time the consumers get to drain after the last thaw, however short the phase. */
const MIN_DRAIN_MS = 2_000;

/** Resolves at `at` (wall-clock ms) or as soon as `signal` aborts; then throws if it did. */
async function until(at: number, signal: AbortSignal): Promise<void> {
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

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * Each stall's window, frozen at FROM and thawed at TO, its kernel queues read just before the thaw;
 * `changed` hears of each freeze and thaw once done.
 */
function scheduleStalls(
  stalls: readonly Fault[],
  probes: ReadonlyMap<string, Probe>,
  port: number,
  startedAt: number,
  changed?: (consumer: string, frozen: boolean) => void,
) {
  const held = new Map<Fault, KernelQueues>();
  const timers = stalls.flatMap((stall) => {
    const probe = probes.get(stall.consumer)!;
    const at = (s: number) => Math.max(0, startedAt + s * 1000 - Date.now());
    return [
      setTimeout(() => {
        probe.freeze();
        changed?.(stall.consumer, true);
      }, at(stall.from)),
      setTimeout(() => {
        held.set(stall, kernelQueues(probe.pid, port));
        probe.thaw();
        changed?.(stall.consumer, false);
      }, at(stall.to)),
    ];
  });
  return { held, cancel: () => timers.forEach(clearTimeout) };
}

function stallRow(stall: Fault, published: Published, held: KernelQueues | undefined): SystemStall {
  const [from, to] = [stall.from * 1000, Math.min(stall.to * 1000, published.endedMs)];
  const acknowledged = [...published.bySeq.values()].filter((w) => w.atMs >= from && w.atMs < to).length;
  return {
    consumer: stall.consumer,
    from: stall.from,
    to: stall.to,
    acknowledged,
    ratePerSec: to > from ? Math.round((acknowledged * 1000) / (to - from)) : 0,
    heldReceiveQueue: held?.receiveQueue ?? 0,
    // A remote server's side of the connection is its kernel's: not seen, so not a 0.
    heldServerSendQueue: held !== undefined && held.peersSeen < held.connections ? null : (held?.peerSendQueue ?? 0),
    heldConnections: held?.connections ?? 0,
    heldClosedByServer: held?.closedByServer ?? 0,
  };
}

/**
 * Polls every consumer's copy until each equals the authority or `deadline` passes: a consumer
 * that stays wrong is given the whole drain to prove it. `seen` hears each poll's reports.
 */
async function drain(
  probes: ReadonlyMap<string, Probe>,
  authority: Authority,
  deadline: number,
  signal: AbortSignal,
  seen?: (reports: ProbeReport[], wrong: number[]) => void,
) {
  const entries = authority.entries();
  for (;;) {
    const reports = await Promise.all([...probes.values()].map((probe) => probe.report()));
    const wrong = reports.map((r) => wrongKeys(r.copy, entries).length);
    seen?.(reports, wrong);
    if (wrong.every((n) => n === 0) || Date.now() >= deadline) return reports;
    await until(Math.min(deadline, Date.now() + DRAIN_POLL_MS), signal);
  }
}

/**
 * One system × idiom: its server started (or someone's, at --endpoint, reached), the namespace
 * prepared, a probe consumer per name, the seed's workload published through the system's writer
 * while the stalled consumers are frozen over their windows, every consumer drained, each copy
 * judged against the acknowledged writes.
 * Whatever happens (a failed server, an abort mid-stall), every probe (thawed first) and the
 * server (one of ours) are stopped and the run's namespace removed before this settles. An `observer`
 * (the live view) hears the run's progress, the probes asked for it twice a second.
 */
export async function runSystem(
  system: TargetSystem,
  idiom: IdiomName,
  options: SystemRunOptions,
  session: Pick<Session, 'signal' | 'guard' | 'release'>,
  observer?: SystemRunObserver,
): Promise<SystemRun> {
  const { signal } = session;
  const knobs = knobValues(system, knobsOf(system, options.knobs));
  const prefix = runPrefix();
  const probes = new Map<string, Probe>();
  let server: RunServer | undefined;
  let writer: Writer | undefined;
  let stalls: ReturnType<typeof scheduleStalls> | undefined;
  let progress: ReturnType<typeof pollProgress> | undefined;
  let compactions: ReturnType<typeof scheduleCompactions> | undefined;
  try {
    const watch = { started: (pid: number) => session.guard(pid, system.name), ended: session.release };
    server = await serverFor(system, knobs, options.endpoint, watch);
    const { endpoint } = server;
    await system.prepare?.(endpoint, prefix, knobs);
    writer = await system.writer(endpoint, prefix, knobs);
    for (const name of options.consumers) {
      if (signal.aborted) throw signal.reason;
      const probe = await startProbe(system.name, idiom, endpoint, prefix);
      probes.set(name, probe);
      session.guard(probe.pid, name);
    }
    const before = await system.counters(endpoint);
    const authority = new Authority();
    const startedAt = Date.now();
    if (observer !== undefined) {
      const { consumers, publishEndsAt } = options;
      const windows = options.stalls.map(({ consumer, from, to }) => ({ consumer, from, to }));
      observer.started({ system: system.name, idiom, consumers, stalls: windows, publishEndsAt });
      progress = pollProgress(probes, () => authority.acknowledged, startedAt, observer);
    }
    stalls = scheduleStalls(options.stalls, probes, endpoint.port, startedAt, progress?.frozen);
    compactions = scheduleCompactions(system, endpoint, options.compactAt, startedAt);
    const published = await publish(writer, workload(options), authority, {
      rate: options.rate,
      durationMs: options.publishEndsAt * 1000,
      startedAt,
      signal,
    });
    const compacted = await compactions.results();
    progress?.stage('waiting for the thaw');
    const lastThaw = Math.max(...options.stalls.map((s) => s.to));
    await until(startedAt + lastThaw * 1000 + 50, signal);
    await progress?.stop();
    progress?.stage('draining');
    const drainMs = Math.max(MIN_DRAIN_MS, 2 * options.duration * 1000);
    const reports = await drain(probes, authority, Date.now() + drainMs, signal, progress?.drained);
    const after = await system.counters(endpoint);
    const entries = authority.entries();
    const latest = latestWrites(published.bySeq);
    const consumers: SystemConsumer[] = options.consumers.map((name, i) => {
      const report = reports[i]!;
      return {
        name,
        stalled: options.stalls.some((s) => s.consumer === name),
        applied: report.applied,
        relists: report.relists,
        ...judgeConsumer(report, entries, published.bySeq, latest),
        signals: report.signals.map((s) => ({
          kind: s.kind,
          at: seconds(s.atMs - startedAt),
          detail: s.detail ?? null,
        })),
      };
    });
    const run: SystemRun = {
      system: system.name,
      idiom,
      prefix,
      endpoint: options.endpoint?.url ?? null,
      knobs: knobsInEffect(system, knobs, options.endpoint !== null),
      compactions: compacted,
      published: published.issued,
      acknowledged: authority.acknowledged,
      authorityKeys: entries.size,
      stalls: options.stalls.map((stall) => stallRow(stall, published, stalls!.held.get(stall))),
      counters: { before: { ...before }, after: { ...after } },
      consumers,
      unexplained: consumers.reduce((sum, c) => sum + c.unexplained.length, 0),
    };
    observer?.done(run);
    return run;
  } finally {
    progress?.cancel();
    stalls?.cancel();
    compactions?.cancel();
    // stop() thaws a frozen probe before it asks it to exit.
    await Promise.all([...probes.values()].map((probe) => probe.stop().then(() => session.release(probe.pid))));
    await writer?.close().catch(() => {});
    if (server !== undefined) {
      await system.cleanup(server.endpoint, prefix).catch(() => {});
      await server.stop();
    }
  }
}
