import { modeSpec, type CountersOf, type LastWrites, type Mode } from '@state-divergence/protocol';
import { countersEvidence, liveDivergence, publisherBacklog, type Divergence } from '../check/live-divergence.js';
import { goneConsumer } from '../check/missed.js';
import { isNetworkKind, PUBLISHER, type Fault, type FaultKind } from '../model/faults.js';
import type { PhaseName } from '../model/events.js';
import { LINK_STATE, type ConsumerLive, type ConsumerState, type LiveSnapshot } from '../model/live.js';
import type { ChildHandle } from './child/child-handle.js';

const REPLY_MS = 400;
/** The publisher's rate is shown over this window, not since the start. */
const RATE_WINDOW_MS = 2_000;

function stateOf(fault: FaultKind | null, alive: boolean, counters: CountersOf<'consumer'> | undefined): ConsumerState {
  if (fault === 'crash') return 'crashed';
  if (fault === 'stall') return 'STALLED';
  if (!alive || counters?.endedEarly) return 'ended';
  if (fault === 'slow') return 'slowed';
  // Alive under a network fault: what its link suffers says more than what it is doing.
  if (fault !== null && isNetworkKind(fault)) return LINK_STATE[fault];
  return counters?.syncing ? 'resyncing' : 'applying';
}

/** Its own stale signal, where it tracks one (the counters carry it only then). */
const stalenessOf = (counters: CountersOf<'consumer'> | undefined): ConsumerLive['staleness'] =>
  counters?.staleMs === undefined ? null : { now: counters.stale ?? false, ms: counters.staleMs };

function countWrong(authority: Float64Array, local: Float64Array): number {
  let wrong = 0;
  const n = Math.max(authority.length, local.length);
  for (let key = 0; key < n; key++) if ((authority[key] ?? 0) !== (local[key] ?? 0)) wrong += 1;
  return wrong;
}

/** One consumer over the run; null where it did not exist yet (a late joiner), so every series lines up with `t`. */
interface Track {
  wrong: number | null;
  series: Array<number | null>;
  diverged: Array<number | null>;
  behind: Array<number | null>;
}

const padded = (samples: number): Track => ({
  wrong: null,
  series: Array(samples).fill(null),
  diverged: Array(samples).fill(null),
  behind: Array(samples).fill(null),
});
const numbers = (series: Array<number | null>): number[] => series.map((v) => v ?? 0);

/**
 * Samples the run for the live view and the over-time series. Two views of
 * each consumer: "wrong now" diffs its live versions against the authority's
 * (a frozen consumer cannot answer, so its last figure stays, marked stale);
 * "diverged" and "behind" come from the broker's last-write offsets and drop
 * ranges (live-divergence.ts), so they are known for a frozen consumer too:
 * its diverged count climbs while it is stopped. Never blocks on anyone for
 * more than REPLY_MS.
 */
export class LiveMonitor {
  private readonly tracks = new Map<string, Track>();
  private readonly rateSamples: Array<{ at: number; published: number }> = [];
  private readonly rateSeries: number[] = [];
  private readonly times: number[] = [];
  /** The broker's counters as last seen: a restarted broker's start again from 0, and a crashed one says nothing. */
  private brokerCounters: CountersOf<'broker'> | undefined;

  constructor(
    private readonly parts: {
      publisher: ChildHandle<'publisher'>;
      /** The broker now; null while it is away (crashed, its successor not ready): no samples from it then. */
      broker: () => ChildHandle<'broker'> | null;
      consumers: () => Array<ChildHandle<'consumer'>>;
      faulted: (name: string) => boolean;
      /** The fault a consumer (or the publisher's link) is under right now: a frozen or crashed one cannot answer. A
       * stall only once confirmed (nemesis.ts). */
      faultOf: (name: string) => FaultKind | null;
      keys: number;
      totalSeconds: number;
      faults: Fault[];
      mode: Mode;
    },
  ) {}

  /** The publisher's changes/s over the last RATE_WINDOW_MS. */
  private rate(published: number): number {
    const now = performance.now();
    this.rateSamples.push({ at: now, published });
    while (this.rateSamples.length > 2 && now - this.rateSamples[0]!.at > RATE_WINDOW_MS) this.rateSamples.shift();
    const first = this.rateSamples[0]!;
    const rate = now - first.at > 0 ? ((published - first.published) * 1000) / (now - first.at) : 0;
    this.rateSeries.push(Math.round(rate));
    return rate;
  }

  async sample(phase: PhaseName, seconds: number): Promise<LiveSnapshot> {
    const { publisher, consumers, faulted, faultOf, keys, totalSeconds, faults, mode } = this.parts;
    const broker = this.parts.broker();
    const [authority, lastWrites, publisherCounters] = await Promise.all([
      publisher.versions(REPLY_MS).catch(() => undefined),
      broker?.lastWrites(REPLY_MS).catch(() => undefined),
      publisher.status(REPLY_MS).catch(() => publisher.latest),
    ]);
    const live = consumers();
    // A slowed consumer is asked: it answers within its period. A frozen or crashed one is not, nor
    // one sent SIGSTOP whose stop is not confirmed yet (it shows as running until it is).
    const silent = (c: ChildHandle) =>
      faultOf(c.name) === 'stall' ||
      faultOf(c.name) === 'crash' ||
      !c.alive ||
      (c.frozen && faultOf(c.name) !== 'slow');
    const answers = await Promise.all(
      live.map((c) =>
        silent(c) ? undefined : Promise.all([c.versions(REPLY_MS), c.status(REPLY_MS)]).catch(() => undefined),
      ),
    );
    const published = publisherCounters?.published ?? 0;
    const publisherRate = this.rate(published);
    this.times.push(seconds);
    this.brokerCounters = broker?.latest ?? this.brokerCounters;
    const { brokerCounters } = this;
    const publisherFault = faultOf(PUBLISHER);
    return {
      mode,
      phase,
      seconds,
      totalSeconds,
      faults,
      keys,
      published,
      publisherRate,
      publisherBacklog: authority && lastWrites ? publisherBacklog(authority, lastWrites) : null,
      brokerDown: broker === null,
      publisherLink: publisherFault !== null && isNetworkKind(publisherFault) ? publisherFault : null,
      consumers: live.map((c, i) => {
        const track = this.tracks.get(c.name) ?? padded(this.times.length - 1);
        this.tracks.set(c.name, track);
        const [local, fresh] = answers[i] ?? [];
        if (local && authority) track.wrong = countWrong(authority, local);
        track.series.push(track.wrong ?? 0);
        const counters = fresh ?? c.latest;
        const fault = faultOf(c.name);
        const split = lastWrites ? this.split(lastWrites, c, fault, counters) : null;
        track.diverged.push(split?.diverged ?? track.diverged.at(-1) ?? null);
        track.behind.push(split?.behind ?? track.behind.at(-1) ?? null);
        return {
          name: c.name,
          foreign: c.command !== null,
          faulted: faulted(c.name),
          state: stateOf(fault, c.alive, counters),
          applied: counters?.applied ?? 0,
          wrongNow: track.wrong,
          stale: local === undefined,
          diverged: split?.diverged ?? null,
          behind: split?.behind ?? null,
          dropped: brokerCounters?.subscribers[c.name]?.dropped ?? 0,
          staleness: stalenessOf(counters),
          series: numbers(track.series),
          divergedSeries: numbers(track.diverged),
        };
      }),
    };
  }

  /**
   * By the consumer's own counters; a crashed consumer (or one whose process is
   * gone while its successor starts) holds nothing, and gets back what its mode's
   * subscription brings (missed.ts goneConsumer).
   */
  private split(
    lastWrites: LastWrites,
    c: ChildHandle<'consumer'>,
    fault: FaultKind | null,
    counters: CountersOf<'consumer'> | undefined,
  ): Divergence {
    const gone = fault === 'crash' || !c.alive;
    if (gone)
      return liveDivergence(lastWrites, {
        name: c.name,
        ...goneConsumer(modeSpec(this.parts.mode).subscribeWith, lastWrites.head),
      });
    return liveDivergence(lastWrites, { name: c.name, ...countersEvidence(counters) });
  }

  /** Over the run, one sample per tick: seconds since publishing started, and per consumer wrong now, diverged and
   * behind. */
  overTime(): {
    t: number[];
    series: Record<string, Array<number | null>>;
    diverged: Record<string, Array<number | null>>;
    behind: Record<string, Array<number | null>>;
  } {
    const per = (pick: (track: Track) => Array<number | null>) =>
      Object.fromEntries([...this.tracks].map(([name, track]) => [name, pick(track)]));
    return {
      t: [...this.times],
      series: per((t) => t.series),
      diverged: per((t) => t.diverged),
      behind: per((t) => t.behind),
    };
  }

  /** The publisher's rate (last 2 s) at each tick. */
  publisherRates(): number[] {
    return [...this.rateSeries];
  }
}
