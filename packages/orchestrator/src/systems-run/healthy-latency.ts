import type { ProbeReport } from '@state-divergence/systems';
import { summarizeLatency } from '../check/latency.js';
import type { LatencySummary } from '../model/check-types.js';
import type { Fault } from '../model/faults.js';
import type { Acknowledged } from './publish.js';

/**
 * The healthy consumers' publish-to-apply latency (the cost table's "healthy p99"): every change a
 * consumer no fault touched applied, from the moment the publisher issued its write to the moment
 * the consumer applied it, both on this machine's clock. Counted over the first stall's window when
 * the run has one (does a frozen reader slow the others?), else over the whole run. A change the
 * consumer applied that no acknowledged write explains (a relist's entries are not applied) is
 * left out. Null when no healthy consumer applied anything in the window.
 */
export function healthyLatency(
  reports: ReadonlyMap<string, ProbeReport>,
  faults: readonly Fault[],
  bySeq: ReadonlyMap<number, Acknowledged>,
  startedAt: number,
): LatencySummary | null {
  const faulted = new Set(faults.map((f) => f.consumer));
  const stall = faults.find((f) => f.kind === 'stall');
  const appliedAt: number[] = [];
  const latencyMs: number[] = [];
  for (const [name, report] of reports) {
    if (faulted.has(name)) continue;
    report.appliedSeqs.forEach((seq, i) => {
      const write = bySeq.get(seq);
      const at = report.appliedAtMs[i];
      if (write === undefined || at === undefined) return;
      appliedAt.push(at);
      latencyMs.push(at - (startedAt + write.issuedMs));
    });
  }
  const window =
    stall === undefined ? undefined : { from: startedAt + stall.from * 1000, to: startedAt + stall.to * 1000 };
  return summarizeLatency({ appliedAt: Float64Array.from(appliedAt), latencyMs: Float64Array.from(latencyMs) }, window);
}
