import {
  Authority,
  knobValues,
  runPrefix,
  startProbe,
  type IdiomName,
  type KernelQueues,
  type Probe,
  type ProbeReport,
  type TargetSystem,
  type Writer,
} from '@state-divergence/systems';
import type { Session } from '../cli/session.js';
import { isBrokerFault, isNetworkFault, PUBLISHER, type Fault } from '../model/faults.js';
import { scheduleCompactions } from './compaction.js';
import { judgeConsumer, latestWrites, lostHeld } from './judge.js';
import { healthyLatency } from './healthy-latency.js';
import { knobsInEffect, knobsOf } from './knob-flags.js';
import { linkEvidence, resetRow } from './network-faults.js';
import { startLinks, type RelayedLinks } from './network-links.js';
import { pollProgress } from './progress-poll.js';
import { publish, type Acknowledged, type Published } from './publish.js';
import { judgedAuthority } from './restart-authority.js';
import type { SystemConsumer, SystemRun, SystemServer, SystemStall } from './system-document.js';
import { drain, drainedState, drainRule, appliedInLastSecond, lastChangeMs, until } from './drain.js';
import { abortable, stageFaults, type StagedFaults } from './system-faults.js';
import type { SystemRunOptions } from './system-options.js';
import { serverFor, type RunServer } from './system-server.js';
import type { SystemRunObserver } from './system-progress.js';
import { workload } from './workload.js';

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
    // A remote server's side of the connection is its kernel's: not seen, so not a 0.
    heldServerSendQueue: held !== undefined && held.peersSeen < held.connections ? null : (held?.peerSendQueue ?? 0),
    heldConnections: held?.connections ?? 0,
    heldClosedByServer: held?.closedByServer ?? 0,
  };
}

/** What the document leaves out and a caller may want: each consumer's last report (the seqs it applied), the
 * acknowledged writes. */
export interface RunEvidence {
  reports: ReadonlyMap<string, ProbeReport>;
  bySeq: ReadonlyMap<number, Acknowledged>;
}

/**
 * One system × idiom: its server started (or someone's, at --endpoint, reached), the namespace
 * prepared, a probe consumer per name, the seed's workload published through the system's writer
 * while the stalled consumers are frozen over their windows, every consumer drained, each copy
 * judged against the acknowledged writes.
 * Whatever happens (a failed server, an abort mid-stall), every probe (thawed first) and the
 * server (one of ours) are stopped and the run's namespace removed before this settles. An `observer`
 * (the live view) hears the run's progress, the probes asked for it twice a second; `evidence` hears
 * the drain's last reports (experiments/systems-*.ts reads which seqs a consumer missed).
 */
export async function runSystem(
  system: TargetSystem,
  idiom: IdiomName,
  options: SystemRunOptions,
  session: Pick<Session, 'signal' | 'guard' | 'release' | 'logger' | 'registry' | 'waitingFor'>,
  observer?: SystemRunObserver,
  evidence?: (seen: RunEvidence) => void,
): Promise<SystemRun> {
  const { signal } = session;
  const knobs = knobValues(system, knobsOf(system, options.knobs));
  const prefix = runPrefix();
  const probes = new Map<string, Probe>();
  let server: RunServer | undefined;
  let writer: Writer | undefined;
  let faults: StagedFaults | undefined;
  let links: RelayedLinks | undefined;
  let progress: ReturnType<typeof pollProgress> | undefined;
  let compactions: ReturnType<typeof scheduleCompactions> | undefined;
  try {
    const watch = { started: (pid: number) => session.guard(pid, system.name), ended: session.release };
    server = await serverFor(system, knobs, options.endpoint, watch);
    const { endpoint } = server;
    await system.prepare?.(endpoint, prefix, knobs);
    // Each client a network fault names reaches the server through its own TCP relay.
    links = await startLinks(options.faults.filter(isNetworkFault), options.resets, endpoint, options.seed, session);
    const relayed = links;
    writer = await system.writer(relayed.endpointFor(PUBLISHER), prefix, knobs);
    const startOne = async (name: string) => {
      const probe = await startProbe(system.name, idiom, relayed.endpointFor(name), prefix);
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
    if (observer !== undefined) {
      const { consumers, publishEndsAt } = options;
      const windows = options.stalls.map(({ consumer, from, to }) => ({ consumer, from, to }));
      observer.started({ system: system.name, idiom, consumers, stalls: windows, publishEndsAt });
      progress = pollProgress(probes, () => authority.acknowledged, startedAt, observer);
    }
    const released = (probe: Probe) => session.release(probe.pid);
    const targets = { probes, server, startProbe: startOne, released, startedAt, frozen: progress?.frozen };
    faults = stageFaults(options.faults, { ...targets, peerPort: relayed.peerPort });
    relayed.stage(startedAt);
    compactions = scheduleCompactions(system, endpoint, options.compactAt, startedAt);
    const firstKill = options.faults.find(isBrokerFault)?.from;
    // An abort stops publishing after the writes in flight: a server that stopped answering never answers them.
    session.waitingFor(`${system.name} (${idiom}): the writes in flight to be answered`);
    const published = await publish(writer, workload(options), authority, {
      rate: options.rate,
      durationMs: options.publishEndsAt * 1000,
      startedAt,
      signal,
      ...(firstKill === undefined ? {} : { failuresFromMs: firstKill * 1000 }),
    });
    session.waitingFor('the run to stop');
    const compacted = await compactions.results();
    progress?.stage('waiting for the thaw');
    await abortable(Promise.all([faults.done(), relayed.done()]), signal);
    await until(Date.now() + 50, signal);
    await progress?.stop();
    progress?.stage('draining');
    const judged = await judgedAuthority(system, endpoint, prefix, published, authority, faults.serverRestarts);
    const rule = drainRule(options.duration, options.publishEndsAt);
    const drained = await drain(options.consumers, probes, judged.entries, rule, signal, progress?.drained);
    const { reports, endedAtMs } = drained;
    const after = await system.counters(endpoint);
    const relays = await relayed.reports();
    const { entries, bySeq } = judged;
    const byName = new Map(options.consumers.map((name, i) => [name, reports[i]!]));
    const latency = healthyLatency(byName, options.faults, bySeq, startedAt);
    evidence?.({ reports: byName, bySeq });
    const latest = latestWrites(bySeq);
    const lost = new Set(judged.lost);
    const consumers: SystemConsumer[] = options.consumers.map((name, i) => {
      const report = reports[i]!;
      const restarts = faults!.consumerRestarts.get(name) ?? [];
      const links = linkEvidence(name, options.faults, options.resets, relays);
      const crash = {
        lost,
        failed: published.failed,
        serverRestarts: faults!.serverRestarts,
        restarts,
        startedAt,
        links,
      };
      const judgedConsumer = judgeConsumer(report, entries, bySeq, latest, crash);
      const changed = lastChangeMs(report);
      return {
        name,
        stalled: options.stalls.some((s) => s.consumer === name),
        restarts,
        lostHeld: lostHeld(report.copy, entries, lost),
        applied: report.applied,
        relists: report.relists,
        ...judgedConsumer,
        state: drainedState(judgedConsumer.state, report, { quietMs: rule.quietMs, endedAtMs }),
        lastChangeAt: changed === -Infinity ? null : seconds(changed - startedAt),
        appliedLastSecond: appliedInLastSecond(report, endedAtMs),
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
      faults: [
        ...options.faults.map((fault) => ({
          kind: fault.kind,
          target: fault.consumer,
          from: fault.from,
          to: fault.to,
          percent: fault.percent ?? null,
          periods: fault.kind === 'slow' ? (faults!.periods.get(fault) ?? 0) : null,
        })),
        ...options.resets.map(resetRow),
      ].sort((a, b) => a.from - b.from),
      relays,
      stalls: options.stalls.map((stall) => stallRow(stall, published, faults!.held.get(stall))),
      server: serverRow,
      counters: { before: { ...before }, after: { ...after } },
      healthyLatency: latency,
      drain: drained.drain,
      consumers,
      unexplained: consumers.reduce((sum, c) => sum + c.unexplained.length, 0) + judged.findings.length,
    };
    observer?.done(run);
    return run;
  } finally {
    // Each step named for the session's one line if it never ends (a server that stopped answering).
    const step = (what: string) => session.waitingFor(`${system.name} (${idiom}): ${what}`);
    progress?.cancel();
    compactions?.cancel();
    step('its faults to end');
    // A kill or restart under way ends first: a probe it starts is stopped below, a server it starts too.
    await faults?.stop();
    step('its consumers to exit');
    // stop() thaws a frozen probe before it asks it to exit.
    await Promise.all([...probes.values()].map((probe) => probe.stop().then(() => session.release(probe.pid))));
    step("its writer's connection to close");
    await writer?.close().catch(() => {});
    step('its network relays to stop');
    await links?.stop();
    if (server !== undefined) {
      step("the run's keys to be removed from the server");
      await system.cleanup(server.endpoint, prefix).catch(() => {});
      step('its server to stop');
      await server.stop();
    }
  }
}
