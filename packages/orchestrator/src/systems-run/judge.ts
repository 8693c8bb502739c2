import { wrongKeys, type ProbeReport, type Signal, type Versioned } from '@state-divergence/systems';
import type { Acknowledged, Failed } from './publish.js';
import type { SystemConsumer } from './system-document.js';
import type { ConsumerRestart, ServerRestart } from './system-faults.js';
import { networkWords, NO_LINK_FAULTS, type LinkEvidence } from './network-judge.js';

/** What a crash leaves for the judge: the keys the server lost, the writes that failed, when each process restarted. */
export interface CrashEvidence {
  /** Keys lost by the server (restart-authority.ts): wrong for no consumer. */
  lost: ReadonlySet<string>;
  failed: readonly Failed[];
  serverRestarts: readonly ServerRestart[];
  /** This consumer's own restarts (a --crash of it): its fresh process knew nothing before. */
  restarts: readonly ConsumerRestart[];
  /** Wall-clock ms when publishing started: signals carry wall-clock times, the rest seconds since it. */
  startedAt: number;
  /** This consumer's partitions and resets (network-judge.ts); absent: none. */
  links?: LinkEvidence;
}

const NO_CRASH: CrashEvidence = { lost: new Set(), failed: [], serverRestarts: [], restarts: [], startedAt: 0 };
const secs = (ms: number) => (Math.round(ms) / 1000).toFixed(3);

/** The last acknowledged write of each key (a delete included), by the system's order. */
export function latestWrites(bySeq: ReadonlyMap<number, Acknowledged>): Map<string, Acknowledged> {
  const latest = new Map<string, Acknowledged>();
  for (const write of bySeq.values()) {
    const known = latest.get(write.key);
    if (known === undefined || write.seq > known.seq) latest.set(write.key, write);
  }
  return latest;
}

/** A consumer's signals as evidence, counted by kind: `trimmed 1, relist 1`, or that there were none. */
export function evidenceOf(signals: readonly Signal[]): string {
  if (signals.length === 0) return 'never delivered, no signal at all';
  const counts = new Map<string, number>();
  for (const { kind } of signals) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return `never delivered; signals: ${[...counts].map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
}

/**
 * What a crash adds to the evidence of one undelivered last write: that it was written before this
 * consumer's fresh process started, or while the server was down or this consumer had not yet
 * reconnected to the restarted one (from the kill to its first reconnect or relist after it).
 * "Written" is the write's whole flight, from its issue to its acknowledgement: a write issued
 * before a fresh subscriber was up may reach the server before its subscription does and be
 * acknowledged after it said it started (a fresh-clone CI run saw one such key on core NATS).
 */
function crashWords(last: Acknowledged, signals: readonly Signal[], crash: CrashEvidence): string {
  const restart = crash.restarts.find((r) => r.startedAt !== null && last.issuedMs < r.startedAt * 1000);
  if (restart !== undefined)
    return (
      `; written before its restart (killed at ${restart.killedAt} s, ` + `a fresh process from ${restart.startedAt} s)`
    );
  for (const down of crash.serverRestarts) {
    const killMs = down.killedAt * 1000;
    const back = signals.find(
      (s) => (s.kind === 'reconnect' || s.kind === 'relist') && s.atMs - crash.startedAt >= killMs,
    );
    const backMs = back === undefined ? Infinity : back.atMs - crash.startedAt;
    if (last.atMs >= killMs && last.issuedMs <= backMs)
      return (
        `; written while it was away from the server (killed at ${down.killedAt} s, ready at ${down.readyAt} s, ` +
        `${back === undefined ? 'no reconnect seen' : `its ${back.kind} at ${secs(backMs)} s`})`
      );
  }
  return '';
}

/** Keys to which `applied` (seqs in the order applied) brought a write older than one it had already applied. */
function outOfOrderKeys(applied: readonly number[], bySeq: ReadonlyMap<number, Acknowledged>) {
  const highest = new Map<string, number>();
  const keys = new Set<string>();
  let count = 0;
  for (const seq of applied) {
    const key = bySeq.get(seq)?.key;
    if (key === undefined) continue; // a seq the run never wrote: judged by the value it left, below
    const before = highest.get(key) ?? 0;
    if (seq < before) {
      count += 1;
      keys.add(key);
    } else highest.set(key, seq);
  }
  return { count, keys };
}

/**
 * One consumer's copy against the authority, each wrong key explained or not. Explained: its last
 * acknowledged write never reached the consumer (the evidence: the consumer's signals, or none).
 * Unexplained, each a finding: a value the run never wrote, a key whose writes were applied out of
 * order, or a last write that did reach it and yet is not what the copy holds. After a crash
 * (`crash`): the keys the server lost are judged for no one (`lostHeld` counts those the copy
 * still holds as acknowledged before), a copy holding a write that failed at the crash is
 * explained by it, and an undelivered last write's evidence says when it was written against the
 * restarts (crashWords). lostHeld counts the lost keys the copy still holds.
 */
export function judgeConsumer(
  report: ProbeReport & { copy: Map<string, Versioned> },
  authority: ReadonlyMap<string, Versioned>,
  bySeq: ReadonlyMap<number, Acknowledged>,
  latest: ReadonlyMap<string, Acknowledged>,
  crash: CrashEvidence = NO_CRASH,
): Pick<SystemConsumer, 'state' | 'wrongKeys' | 'explained' | 'unexplained' | 'outOfOrder'> {
  const wrong = wrongKeys(report.copy, authority).filter((key) => !crash.lost.has(key));
  const reached = new Set(report.appliedSeqs);
  const disorder = outOfOrderKeys(report.appliedSeqs, bySeq);
  const unexplained: SystemConsumer['unexplained'] = [];
  const explained = new Map<string, number>();
  const explain = (evidence: string) => explained.set(evidence, (explained.get(evidence) ?? 0) + 1);
  const base = evidenceOf(report.signals);
  for (const key of wrong) {
    const held = report.copy.get(key);
    const written = held === undefined ? undefined : bySeq.get(held.seq);
    const last = latest.get(key);
    if (held !== undefined && (written?.key !== key || written.value !== held.value)) {
      if (crash.failed.some((f) => f.key === key && f.value === held.value))
        explain('holds a write that failed at the crash (never acknowledged, yet delivered)');
      else unexplained.push({ key, why: `holds a value the authority never had (seq ${held.seq})` });
    } else if (disorder.keys.has(key)) unexplained.push({ key, why: 'applied its writes out of order' });
    else if (last !== undefined && !reached.has(last.seq))
      explain(
        base +
          crashWords(last, report.signals, crash) +
          networkWords(last, report.signals, crash.links ?? NO_LINK_FAULTS, crash.startedAt),
      );
    else unexplained.push({ key, why: `its last write (seq ${last?.seq ?? 'none'}) reached it, yet the copy differs` });
  }
  return {
    state: wrong.length === 0 ? 'correct' : 'wrong',
    wrongKeys: wrong,
    explained: [...explained].map(([evidence, keys]) => ({ keys, evidence })),
    unexplained,
    outOfOrder: disorder.count,
  };
}

/** Of the keys the server lost, how many `copy` still holds as they were before (a relist would have dropped them). */
export function lostHeld(
  copy: ReadonlyMap<string, Versioned>,
  authority: ReadonlyMap<string, Versioned>,
  lost: ReadonlySet<string>,
): number {
  return wrongKeys(copy, authority).filter((key) => lost.has(key)).length;
}
