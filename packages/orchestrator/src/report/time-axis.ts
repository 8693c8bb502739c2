import { faultWindow, publisherFaults, type Fault, type FaultKind } from '../model/faults.js';
import type { PhaseName } from '../model/events.js';
import type { JsonConfig, JsonRun } from './document.js';

/**
 * One mode's time axis, shared by its time charts and its timeline: seconds
 * since publishing started (the plan's time 0, the faults' clock), the fault
 * windows to shade and the phase boundaries to draw.
 */
export interface TimeAxis {
  /** The axis ends here: the end of `quiesced`, or the last thing known to have happened. */
  end: number;
  faults: Array<Fault & { label: string }>;
  phases: Array<{ t: number; phase: PhaseName }>;
}

/** One colour per fault kind (the legend's, the bands', the timeline's). */
export const FAULT_COLOURS: Record<FaultKind, string> = {
  stall: '#f59e0b',
  slow: '#8b5cf6',
  crash: '#475569',
  partition: '#dc2626',
  loss: '#0ea5e9',
  delay: '#14b8a6',
  bandwidth: '#ca8a04',
};

/**
 * Converters to seconds since publishing started from the two clocks a run's
 * times are on (see `origin` in the document): the run clock of `events` (ms
 * since the mode started) and the wall clock the children stamp (Date.now).
 */
export function clocks(run: JsonRun): { ofEvent: (at: number) => number; ofWall: (ms: number) => number } {
  return {
    ofEvent: (at) => (at - run.origin.runMs) / 1000,
    ofWall: (ms) => (ms - run.origin.wallMs) / 1000,
  };
}

/** The broker's outages as faults of the `broker` (a crash: killed, then started again), drawn like a consumer's. */
export function brokerFaults(run: JsonRun): Fault[] {
  return run.brokerOutages.map((o) => ({ kind: 'crash', consumer: 'broker', from: o.from, to: o.to }));
}

/**
 * A consumer's faults as they happened where that was measured: each stall from its confirmed
 * freeze to its confirmed thaw (the run's `freeze` and `thaw` events: when /proc showed the
 * consumer stopped, and running again), the n-th stall by its n-th freeze. A stall with no
 * confirmed freeze (its consumer died first) keeps its schedule, and so does one never thawed
 * (the run ended inside it) at its end; every other fault is drawn as the flags asked for it.
 */
export function consumerFaults(run: JsonRun, consumer: JsonRun['consumers'][number]): Fault[] {
  const { ofEvent } = clocks(run);
  const mine = run.events.filter((e) => (e.type === 'freeze' || e.type === 'thaw') && e.consumer === consumer.name);
  const freezes = mine.filter((e) => e.type === 'freeze');
  let stalls = 0;
  return consumer.faults.map((f) => {
    if (f.kind !== 'stall') return f;
    const freeze = freezes[stalls++];
    if (freeze === undefined) return f;
    const thaw = mine.find((e) => e.type === 'thaw' && e.at >= freeze.at);
    return { ...f, from: ofEvent(freeze.at), to: thaw === undefined ? f.to : ofEvent(thaw.at) };
  });
}

/** The axis of one mode's run: the consumers' faults (stalls as confirmed: consumerFaults), the broker's outages and
 * the publisher's link faults (`--partition publisher@…`). */
export function timeAxis(run: JsonRun, config: Pick<JsonConfig, 'duration' | 'faults'>): TimeAxis {
  const phaseSeconds = config.duration;
  const { ofEvent } = clocks(run);
  const phases = run.events.flatMap((e) =>
    e.type === 'phase' ? [{ t: Math.max(0, ofEvent(e.at)), phase: e.phase }] : [],
  );
  const faults = [
    ...run.consumers.flatMap((c) => consumerFaults(run, c)),
    ...brokerFaults(run),
    ...publisherFaults(config.faults),
  ]
    .map((f) => ({ ...f, label: `${f.consumer} ${faultWindow(f)}` }))
    .sort((a, b) => a.from - b.from);
  const quiesced = phases.find((p) => p.phase === 'quiesced');
  const end =
    quiesced === undefined
      ? Math.max(run.wrongOverTime.t.at(-1) ?? 0, ...faults.map((f) => f.to), ...phases.map((p) => p.t))
      : quiesced.t + phaseSeconds;
  return { end: labelledEnd(end), faults, phases };
}

/** `end` up to the next tick, so the axis ends labelled (4.99 s of run: the axis ends at 5). */
export function labelledEnd(end: number): number {
  const step = tickStep(Math.max(end, 0.1));
  return Math.ceil(Math.max(end, 0.1) / step - 1e-6) * step;
}

/** A round step giving at most ~10 ticks over [0, end]. */
const tickStep = (end: number): number =>
  [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => end / s <= 10) ?? Math.ceil(end / 10);

/** Tick values in seconds over [0, end]. */
export function timeTicks(end: number): number[] {
  const step = tickStep(end);
  const ticks: number[] = [];
  for (let i = 0; i * step <= end + 1e-9; i++) ticks.push(Math.round(i * step * 1000) / 1000);
  return ticks;
}

/** "1.04 s": a time as the report's marks name it. */
export const secondsText = (t: number): string => `${t.toFixed(2)} s`;
