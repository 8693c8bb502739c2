import type { ConsumerReport, RelayReport } from '@state-divergence/protocol';
import type { PublishingOrigin } from '../model/events.js';
import type { RelayOutcome, Staleness } from '../model/run-types.js';

/** What a network fault's relay did and cost, and what a cut-off consumer knew: the outcome's share of issue 19. */

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** A relay's report with its CPU per datagram handled (forwarded or dropped, both ways): the relay's cost. */
export function relayOutcome({ role: _role, ...report }: RelayReport): RelayOutcome {
  const datagrams = report.up.forwarded + report.up.dropped + report.down.forwarded + report.down.dropped;
  return { ...report, microsPerDatagram: datagrams === 0 ? null : round2(report.cpuMicros / datagrams) };
}

export const relayOutcomes = (relays: Record<string, RelayReport> | undefined): Record<string, RelayOutcome> =>
  Object.fromEntries(Object.entries(relays ?? {}).map(([client, report]) => [client, relayOutcome(report)]));

/** A consumer's stale time, its spans moved from the wall clock to seconds since publishing started (to the ms). */
export function stalenessOf(report: ConsumerReport, origin: PublishingOrigin): Staleness {
  const seconds = (wallMs: number) => Math.round(wallMs - origin.wallMs) / 1000;
  return {
    staleMs: report.staleMs === undefined ? null : Math.round(report.staleMs),
    staleSpans: (report.staleSpans ?? []).map(([from, to]): [number, number] => [seconds(from), seconds(to)]),
  };
}
