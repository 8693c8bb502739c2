import type { CountersOf, Mode } from '@state-divergence/protocol';
import type { FaultKind } from '../model/faults.js';
import type { PhaseName } from '../model/events.js';
import type { ConsumerState, LiveSnapshot } from '../model/live.js';
import type { ChildHandle } from './child/child-handle.js';

const REPLY_MS = 400;
/** The publisher's rate is shown over this window, not since the start. */
const RATE_WINDOW_MS = 2_000;

function stateOf(fault: FaultKind | null, alive: boolean, counters: CountersOf<'consumer'> | undefined): ConsumerState {
  if (fault === 'crash') return 'crashed';
  if (fault === 'stall') return 'STALLED';
  if (!alive || counters?.endedEarly) return 'ended';
  if (fault === 'slow') return 'slowed';
  return counters?.syncing ? 'resyncing' : 'applying';
}

function countWrong(authority: Float64Array, local: Float64Array): number {
  let wrong = 0;
  const n = Math.max(authority.length, local.length);
  for (let key = 0; key < n; key++) if ((authority[key] ?? 0) !== (local[key] ?? 0)) wrong += 1;
  return wrong;
}

/**
 * Samples the run for the live view and the wrong-keys-over-time series: the
 * authority's and each consumer's live versions over IPC, diffed here. A frozen
 * consumer cannot answer, so it is not asked: its last figure stays, marked stale.
 * Never blocks on anyone for more than REPLY_MS.
 */
export class LiveMonitor {
  private readonly last = new Map<string, { wrong: number | null; series: number[] }>();
  private readonly rateSamples: Array<{ at: number; published: number }> = [];
  private readonly rateSeries: number[] = [];

  constructor(
    private readonly parts: {
      publisher: ChildHandle<'publisher'>;
      broker: ChildHandle<'broker'>;
      consumers: () => Array<ChildHandle<'consumer'>>;
      stalled: (name: string) => boolean;
      /** The fault a consumer is under right now: a frozen or crashed one cannot answer. */
      faultOf: (name: string) => FaultKind | null;
      keys: number;
      totalSeconds: number;
      mode: Mode;
    },
  ) {}

  async sample(phase: PhaseName, seconds: number): Promise<LiveSnapshot> {
    const { publisher, broker, consumers, stalled, faultOf, keys, totalSeconds, mode } = this.parts;
    const authority = await publisher.versions(REPLY_MS).catch(() => undefined);
    const live = consumers();
    // A slowed consumer is asked: it answers within its period. A frozen or crashed one is not.
    const silent = (c: ChildHandle) => faultOf(c.name) === 'stall' || faultOf(c.name) === 'crash' || !c.alive;
    const versions = await Promise.all(live.map((c) => (silent(c) || !authority ? Promise.resolve(undefined) : c.versions(REPLY_MS).catch(() => undefined))));
    const counters = await publisher.status(REPLY_MS).catch(() => publisher.latest);
    const published = counters?.published ?? 0;
    const now = performance.now();
    this.rateSamples.push({ at: now, published });
    while (this.rateSamples.length > 2 && now - this.rateSamples[0]!.at > RATE_WINDOW_MS) this.rateSamples.shift();
    const first = this.rateSamples[0]!;
    const publisherRate = now - first.at > 0 ? ((published - first.published) * 1000) / (now - first.at) : 0;
    this.rateSeries.push(Math.round(publisherRate));
    const brokerCounters = broker.latest;
    return {
      mode, phase, seconds, totalSeconds, keys, published, publisherRate,
      consumers: live.map((c, i) => {
        const entry = this.last.get(c.name) ?? { wrong: null, series: [] };
        const local = versions[i];
        if (local && authority) entry.wrong = countWrong(authority, local);
        entry.series.push(entry.wrong ?? 0);
        this.last.set(c.name, entry);
        const counters = c.latest;
        const state = stateOf(faultOf(c.name), c.alive, counters);
        return {
          name: c.name, stalled: stalled(c.name), state, applied: counters?.applied ?? 0,
          wrongNow: entry.wrong, stale: local === undefined, dropped: brokerCounters?.subscribers[c.name]?.dropped ?? 0, series: [...entry.series],
        };
      }),
    };
  }

  /** Wrong keys over the run per consumer, one sample per tick. */
  series(): Record<string, number[]> {
    return Object.fromEntries([...this.last].map(([name, entry]) => [name, entry.series]));
  }

  /** The publisher's rate (last 2 s) at each tick. */
  publisherRates(): number[] {
    return [...this.rateSeries];
  }
}
