import type { Authority, Endpoint, TargetSystem, Versioned } from '@state-divergence/systems';
import { latestWrites } from './judge.js';
import type { Acknowledged, Published } from './publish.js';
import type { ServerRestart } from './system-faults.js';

/** What every consumer is judged against: the acknowledged writes, or after a server restart what survived it. */
export interface JudgedAuthority {
  /** Each key's value as the consumers should end with it. */
  entries: Map<string, Versioned>;
  /** Every write the run knows the server applied, by seq: the acknowledged, and failed ones the server kept. */
  bySeq: Map<number, Acknowledged>;
  /** Keys acknowledged before a crash whose last write the restarted server no longer holds: judged for no one. */
  lost: string[];
  /** Failed writes (no acknowledgement) the restarted server holds nonetheless. */
  keptFailed: number;
  /** What the server holds that no write explains (a value never written, a post-restart write gone). */
  findings: { key: string; why: string }[];
}

/**
 * The authority of a run whose server was killed and restarted. What the server keeps across a
 * restart is its own (ServerRecipe.persists: etcd and the KV bucket keep everything, a Redis
 * without persistence nothing, core NATS never held anything but the writer serves its record), so
 * the acknowledged writes alone would blame a consumer for the server's loss. Instead, once every
 * write has settled, the system's state is read (`system.state`, what a relist reads) and checked
 * write by write: a key equal to its last acknowledged write is as it should be; one holding a
 * write that failed at the crash is that write, applied though never acknowledged; one whose last
 * write was acknowledged before the last restart and is gone is *lost by the server*, for everyone,
 * and no consumer's wrong key; anything else (a value never written, a write acknowledged by the
 * restarted server and gone) is a finding. Without a restart: the acknowledged writes, as before.
 */
export async function judgedAuthority(
  system: TargetSystem,
  endpoint: Endpoint,
  prefix: string,
  published: Published,
  authority: Authority,
  restarts: readonly ServerRestart[],
): Promise<JudgedAuthority> {
  const acknowledged = authority.entries();
  const last = restarts.at(-1);
  if (last === undefined)
    return { entries: acknowledged, bySeq: published.bySeq, lost: [], keptFailed: 0, findings: [] };
  // An acknowledgement before the new process was started came from the old one (a SIGKILL takes
  // a few ms to land: writes acknowledged just after the kill was sent are the old server's).
  const restartedMs = (last.restartedAt ?? Infinity) * 1000;
  const state = await system.state(endpoint, prefix);
  const bySeq = new Map(published.bySeq);
  const latest = latestWrites(published.bySeq);
  const findings: JudgedAuthority['findings'] = [];
  const lost: string[] = [];
  let keptFailed = 0;
  for (const [key, held] of state) {
    const written = bySeq.get(held.seq);
    if (written?.key === key && written.value === held.value) continue;
    const failed = published.failed.find((f) => f.key === key && f.value === held.value);
    if (failed !== undefined && written === undefined) {
      bySeq.set(held.seq, { key, value: held.value, seq: held.seq, atMs: failed.atMs, issuedMs: failed.issuedMs });
      keptFailed += 1;
    } else findings.push({ key, why: `the server holds a value no write of the run had (seq ${held.seq})` });
  }
  for (const key of new Set([...acknowledged.keys(), ...state.keys()])) {
    const held = state.get(key);
    const write = latest.get(key);
    if (held?.value === acknowledged.get(key)?.value || write === undefined) continue;
    if (held !== undefined && held.seq > write.seq) continue; // a failed write it kept is newer
    if (write.atMs < restartedMs) lost.push(key);
    else findings.push({ key, why: `the server lost seq ${write.seq}, acknowledged after its restart` });
  }
  return { entries: state, bySeq, lost: lost.sort(), keptFailed, findings };
}
