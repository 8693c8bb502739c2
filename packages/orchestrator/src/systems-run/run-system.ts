import {
  Authority,
  kernelQueues,
  knobValues,
  runPrefix,
  startProbe,
  startServer,
  wrongKeys,
  type IdiomName,
  type KernelQueues,
  type Probe,
  type RunningServer,
  type TargetSystem,
  type Writer,
} from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import type { Fault } from '../model/faults.js';
import { scheduleCompactions } from './compaction.js';
import { judgeConsumer, latestWrites } from './judge.js';
import { knobsOf } from './knob-flags.js';
import { publish, type Published } from './publish.js';
import type { SystemConsumer, SystemRun, SystemStall } from './system-document.js';
import type { SystemRunOptions } from './system-options.js';
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

/** Each stall's window, frozen at FROM and thawed at TO, its kernel queues read just before the thaw. */
function scheduleStalls(stalls: readonly Fault[], probes: ReadonlyMap<string, Probe>, port: number, startedAt: number) {
  const held = new Map<Fault, KernelQueues>();
  const timers = stalls.flatMap((stall) => {
    const probe = probes.get(stall.consumer)!;
    const at = (s: number) => Math.max(0, startedAt + s * 1000 - Date.now());
    return [
      setTimeout(() => probe.freeze(), at(stall.from)),
      setTimeout(() => {
        held.set(stall, kernelQueues(probe.pid, port));
        probe.thaw();
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
    heldServerSendQueue: held?.peerSendQueue ?? 0,
    heldConnections: held?.connections ?? 0,
    heldClosedByServer: held?.closedByServer ?? 0,
  };
}

/**
 * Polls every consumer's copy until each equals the authority or `deadline` passes: a consumer
 * that stays wrong is given the whole drain to prove it.
 */
async function drain(probes: ReadonlyMap<string, Probe>, authority: Authority, deadline: number, signal: AbortSignal) {
  const entries = authority.entries();
  for (;;) {
    const reports = await Promise.all([...probes.values()].map((probe) => probe.report()));
    if (reports.every((r) => wrongKeys(r.copy, entries).length === 0) || Date.now() >= deadline) return reports;
    await until(Math.min(deadline, Date.now() + DRAIN_POLL_MS), signal);
  }
}

/**
 * One system × idiom: its server started, the namespace prepared, a probe consumer per name, the
 * seed's workload published through the system's writer while the stalled consumers are frozen
 * over their windows, every consumer drained, each copy judged against the acknowledged writes.
 * Whatever happens (a failed server, an abort mid-stall), every probe (thawed first) and the
 * server are stopped and the run's namespace removed before this settles.
 */
export async function runSystem(
  system: TargetSystem,
  idiom: IdiomName,
  options: SystemRunOptions,
  session: Pick<Session, 'signal' | 'guard' | 'release'>,
): Promise<SystemRun> {
  const { signal } = session;
  const knobs = knobValues(system, knobsOf(system, options.knobs));
  const prefix = runPrefix();
  const probes = new Map<string, Probe>();
  let server: RunningServer | undefined;
  let writer: Writer | undefined;
  let stalls: ReturnType<typeof scheduleStalls> | undefined;
  let compactions: ReturnType<typeof scheduleCompactions> | undefined;
  try {
    const watch = { started: (pid: number) => session.guard(pid, system.name), ended: session.release };
    server = await startServer(system.name, system.server, knobs, { watch });
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
    stalls = scheduleStalls(options.stalls, probes, endpoint.port, startedAt);
    compactions = scheduleCompactions(system, endpoint, options.compactAt, startedAt);
    const published = await publish(writer, workload(options), authority, {
      rate: options.rate,
      durationMs: options.publishEndsAt * 1000,
      startedAt,
      signal,
    });
    const compacted = await compactions.results();
    const lastThaw = Math.max(...options.stalls.map((s) => s.to));
    await until(startedAt + lastThaw * 1000 + 50, signal);
    const drainMs = Math.max(MIN_DRAIN_MS, 2 * options.duration * 1000);
    const reports = await drain(probes, authority, Date.now() + drainMs, signal);
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
    return {
      system: system.name,
      idiom,
      prefix,
      knobs: { ...knobs },
      compactions: compacted,
      published: published.issued,
      acknowledged: authority.acknowledged,
      authorityKeys: entries.size,
      stalls: options.stalls.map((stall) => stallRow(stall, published, stalls!.held.get(stall))),
      counters: { before: { ...before }, after: { ...after } },
      consumers,
      unexplained: consumers.reduce((sum, c) => sum + c.unexplained.length, 0),
    };
  } finally {
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
