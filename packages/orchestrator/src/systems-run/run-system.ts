import {
  Authority,
  knobValues,
  runPrefix,
  startProbe,
  startServer,
  wrongKeys,
  type IdiomName,
  type KernelQueues,
  type Probe,
  type Versioned,
  type RunningServer,
  type TargetSystem,
  type Writer,
} from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import { isBrokerFault, type Fault } from '../model/faults.js';
import { judgeConsumer, latestWrites, lostHeld } from './judge.js';
import { publish, type Published } from './publish.js';
import { judgedAuthority } from './restart-authority.js';
import type { SystemConsumer, SystemRun, SystemServer, SystemStall } from './system-document.js';
import { abortable, stageFaults, type StagedFaults } from './system-faults.js';
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
  };
}

/**
 * Polls every consumer's copy until each equals the authority or `deadline` passes: a consumer
 * that stays wrong is given the whole drain to prove it.
 */
async function drain(
  probes: ReadonlyMap<string, Probe>,
  entries: ReadonlyMap<string, Versioned>,
  deadline: number,
  signal: AbortSignal,
) {
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
  const knobs = knobValues(system, {});
  const prefix = runPrefix();
  const probes = new Map<string, Probe>();
  let server: RunningServer | undefined;
  let writer: Writer | undefined;
  let faults: StagedFaults | undefined;
  try {
    const watch = { started: (pid: number) => session.guard(pid, system.name), ended: session.release };
    server = await startServer(system.name, system.server, knobs, { watch });
    const { endpoint } = server;
    await system.prepare?.(endpoint, prefix, knobs);
    writer = await system.writer(endpoint, prefix, knobs);
    const startOne = async (name: string) => {
      const probe = await startProbe(system.name, idiom, endpoint, prefix);
      session.guard(probe.pid, name);
      return probe;
    };
    for (const name of options.consumers) {
      if (signal.aborted) throw signal.reason;
      probes.set(name, await startOne(name));
    }
    const before = await system.counters(endpoint);
    const authority = new Authority();
    const startedAt = Date.now();
    const released = (probe: Probe) => session.release(probe.pid);
    faults = stageFaults(options.faults, { probes, server, startProbe: startOne, released, startedAt });
    const firstKill = options.faults.find(isBrokerFault)?.from;
    const published = await publish(writer, workload(options), authority, {
      rate: options.rate,
      durationMs: options.publishEndsAt * 1000,
      startedAt,
      signal,
      ...(firstKill === undefined ? {} : { failuresFromMs: firstKill * 1000 }),
    });
    await abortable(faults.done(), signal);
    await until(Date.now() + 50, signal);
    const judged = await judgedAuthority(system, endpoint, prefix, published, authority, faults.serverRestarts);
    const drainMs = Math.max(MIN_DRAIN_MS, 2 * options.duration * 1000);
    const reports = await drain(probes, judged.entries, Date.now() + drainMs, signal);
    const after = await system.counters(endpoint);
    const { entries, bySeq } = judged;
    const latest = latestWrites(bySeq);
    const lost = new Set(judged.lost);
    const consumers: SystemConsumer[] = options.consumers.map((name, i) => {
      const report = reports[i]!;
      const restarts = faults!.consumerRestarts.get(name) ?? [];
      const crash = { lost, failed: published.failed, serverRestarts: faults!.serverRestarts, restarts, startedAt };
      return {
        name,
        stalled: options.stalls.some((s) => s.consumer === name),
        restarts,
        lostHeld: lostHeld(report.copy, entries, lost),
        applied: report.applied,
        relists: report.relists,
        ...judgeConsumer(report, entries, bySeq, latest, crash),
        signals: report.signals.map((s) => ({
          kind: s.kind,
          at: seconds(s.atMs - startedAt),
          detail: s.detail ?? null,
        })),
      };
    });
    const serverRow: SystemServer = {
      restarts: faults.serverRestarts,
      failedWrites: published.failed.length,
      firstFailureAt: published.failed.length === 0 ? null : seconds(published.failed[0]!.atMs),
      lastFailureAt: published.failed.length === 0 ? null : seconds(published.failed.at(-1)!.atMs),
      failure: published.failed[0]?.message ?? null,
      keptFailed: judged.keptFailed,
      lostByServer: judged.lost,
      findings: judged.findings,
    };
    return {
      system: system.name,
      idiom,
      prefix,
      published: published.issued,
      acknowledged: authority.acknowledged,
      authorityKeys: entries.size,
      faults: options.faults.map((fault) => ({
        kind: fault.kind,
        target: fault.consumer,
        from: fault.from,
        to: fault.to,
        percent: fault.percent ?? null,
        periods: fault.kind === 'slow' ? (faults!.periods.get(fault) ?? 0) : null,
      })),
      stalls: options.stalls.map((stall) => stallRow(stall, published, faults!.held.get(stall))),
      server: serverRow,
      counters: { before: { ...before }, after: { ...after } },
      consumers,
      unexplained: consumers.reduce((sum, c) => sum + c.unexplained.length, 0) + judged.findings.length,
    };
  } finally {
    // A kill or restart under way ends first: a probe it starts is stopped below, a server it starts too.
    await faults?.stop();
    // stop() thaws a frozen probe before it asks it to exit.
    await Promise.all([...probes.values()].map((probe) => probe.stop().then(() => session.release(probe.pid))));
    await writer?.close().catch(() => {});
    if (server !== undefined) {
      await system.cleanup(server.endpoint, prefix).catch(() => {});
      await server.stop();
    }
  }
}
