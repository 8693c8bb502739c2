/**
 * A hand-built gathered run for the outcome's unit tests: twelve changes over
 * six keys, no process started.
 */
import type { BrokerReport, ConsumerReport } from '@state-divergence/protocol';
import type { GatheredRun } from '@state-divergence/orchestrator/internal';

// Twelve changes over six keys, version = offset:
//   1 k0  2 k1  3 k2  4 k3  5 k0  6 k4  7 k1  8 k5  9 k2  10 k3  11 k0  12 k4
export const KEYS = [0, 1, 2, 3, 0, 4, 1, 5, 2, 3, 0, 4];
export const history = {
  keys: Uint32Array.from(KEYS),
  values: Uint32Array.from(KEYS.map((_, i) => 100 + i + 1)),
  deleted: new Uint8Array(12),
};
// The authority, and each key's last write offset at the broker: k0 11, k1 7, k2 9, k3 10, k4 12, k5 8.
export const lastWriteOffsets = [11, 7, 9, 10, 12, 8];
export const authority = {
  versions: lastWriteOffsets,
  values: lastWriteOffsets.map((o) => 100 + o),
  deleted: [0, 0, 0, 0, 0, 0],
};
export const held = (offsets: number[]): Array<[number, number, number]> =>
  offsets.map((o) => [KEYS[o - 1]!, o, 100 + o]);

/** A gathered lossy run of these twelve changes, with these consumers' reports and this broker report. */
export function gathered(broker: BrokerReport | null, consumers: Array<[string, ConsumerReport | null]>): GatheredRun {
  return {
    mode: 'lossy',
    consumers: consumers.map(([name, r]) => ({
      name,
      faulted: true,
      faults: [],
      recoveredAt: null,
      report: r,
      digest: null,
      died: null,
    })),
    publisher: {
      role: 'publisher',
      published: 12,
      authority,
      history,
      startedAt: 1_000,
      stoppedAt: 4_000,
      blockedMs: 0,
      discarded: [],
      acknowledgedLost: 0,
      reconnects: 0,
      outageMs: 0,
    },
    broker,
    stallWindow: { from: 2_000, to: 3_000 },
    publishedInStall: 4,
    publishedBeforeStall: 4,
    drain: { complete: true, ms: 1, behind: {} },
    rogue: null,
    wrongOverTime: { intervalMs: 500, t: [], series: {}, diverged: {}, behind: {}, publisherRate: [] },
    processes: [],
    events: [],
    origin: { runMs: 500, wallMs: 1_000 },
    wallSeconds: 5,
    commands: {},
    contract: {},
    datagramBytes: 1350,
    stallBytes: [],
  };
}

/** A consumer's report holding these entries, as ours sends it. */
export function consumerReport(
  entries: Array<[number, number, number]>,
  extra: Partial<ConsumerReport> = {},
): ConsumerReport {
  return {
    role: 'consumer',
    applied: entries.length,
    lastOffset: Math.max(0, ...entries.map((e) => e[1])),
    coveredAfter: 0,
    latency: { appliedAt: new Float64Array(), latencyMs: new Float64Array() },
    lags: 0,
    resumes: 0,
    syncs: [],
    entries,
    endedEarly: null,
    disconnects: 0,
    reconnects: 0,
    skippedRanges: [],
    ...extra,
  };
}
