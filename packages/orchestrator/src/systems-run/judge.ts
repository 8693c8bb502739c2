import { wrongKeys, type ProbeReport, type Signal, type Versioned } from '@state-divergence/systems';
import type { Acknowledged } from './publish.js';
import type { SystemConsumer } from './system-document.js';

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
 * order, or a last write that did reach it and yet is not what the copy holds.
 */
export function judgeConsumer(
  report: ProbeReport & { copy: Map<string, Versioned> },
  authority: ReadonlyMap<string, Versioned>,
  bySeq: ReadonlyMap<number, Acknowledged>,
  latest: ReadonlyMap<string, Acknowledged>,
): Pick<SystemConsumer, 'state' | 'wrongKeys' | 'explained' | 'unexplained' | 'outOfOrder'> {
  const wrong = wrongKeys(report.copy, authority);
  const reached = new Set(report.appliedSeqs);
  const disorder = outOfOrderKeys(report.appliedSeqs, bySeq);
  const unexplained: SystemConsumer['unexplained'] = [];
  let explained = 0;
  for (const key of wrong) {
    const held = report.copy.get(key);
    const written = held === undefined ? undefined : bySeq.get(held.seq);
    const last = latest.get(key);
    if (held !== undefined && (written?.key !== key || written.value !== held.value))
      unexplained.push({ key, why: `holds a value the authority never had (seq ${held.seq})` });
    else if (disorder.keys.has(key)) unexplained.push({ key, why: 'applied its writes out of order' });
    else if (last !== undefined && !reached.has(last.seq)) explained += 1;
    else unexplained.push({ key, why: `its last write (seq ${last?.seq ?? 'none'}) reached it, yet the copy differs` });
  }
  return {
    state: wrong.length === 0 ? 'correct' : 'wrong',
    wrongKeys: wrong,
    explained: explained === 0 ? [] : [{ keys: explained, evidence: evidenceOf(report.signals) }],
    unexplained,
    outOfOrder: disorder.count,
  };
}
