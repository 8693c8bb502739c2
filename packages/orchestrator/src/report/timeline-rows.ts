import type { SubscriberMark } from '@state-divergence/protocol';
import type { RunEvent } from '../model/events.js';
import { faultWindow, PUBLISHER, type Fault, type FaultKind } from '../model/faults.js';
import type { JsonRun } from './document.js';
import { resumeWords } from './restart-text.js';
import { brokerFaults, clocks, consumerFaults, FAULT_COLOURS, type TimeAxis } from './time-axis.js';
import { mergeRows, type TimelineMark, type TimelineRow, type TimelineSpan } from './timeline-fold.js';

/**
 * The timeline's data: one row per process, each mark and span in seconds since
 * publishing started, converted from the clock it was taken on (clocks() in
 * time-axis.ts): the orchestrator's events (faults, restarts, the publisher's
 * end) on the run clock; the broker's subscriber marks and blocked writes and a
 * consumer's syncs on the wall clock. Only what falls on the axis is kept:
 * start-up before publishing and the check after `quiesced` are not drawn.
 */

export const TONES = {
  drops: { colour: '#b91c1c', meaning: 'drops' },
  recovery: { colour: '#1d4ed8', meaning: 'LAG, RESUME, delta sent, a resume after losing the broker' },
  applied: { colour: '#0f766e', meaning: 'snapshot or delta applied' },
  connection: { colour: '#374151', meaning: 'subscribed, disconnected, ended, publisher' },
} as const;
/** A consumer's own stale spans (no frame from the broker for --stale-after), drawn above its row's line. */
export const STALE_COLOUR = '#ca8a04';
type Tone = keyof typeof TONES;

const EVENT_FAULT: Partial<Record<RunEvent['type'], FaultKind>> = {
  freeze: 'stall',
  thaw: 'stall',
  slow: 'slow',
  unslow: 'slow',
  crash: 'crash',
  restart: 'crash',
};

/** What an orchestrator event did to its consumer, in words. */
function eventText(e: RunEvent): string | undefined {
  switch (e.type) {
    case 'freeze':
      return 'frozen (SIGSTOP)';
    case 'thaw':
      return 'thawed (SIGCONT)';
    case 'slow':
      return `slowed (${e.percent} %)`;
    case 'unslow':
      return 'no longer slowed';
    case 'crash':
      return 'crashed (SIGKILL)';
    case 'restart':
      return 'restarted';
    case 'joined':
      return 'joined';
    case 'consumer-ended':
      return `ended: ${e.reason}`;
    case 'net-fault':
      return `link ${faultWindow(e.fault)}`;
    case 'net-heal':
      return 'link cleared';
    default:
      return undefined;
  }
}

/** An event's mark colour: its fault kind's, a network fault's by the fault it started, else a connection's. */
function eventColour(e: RunEvent): string {
  if (e.type === 'net-fault') return FAULT_COLOURS[e.fault.kind];
  const kind = EVENT_FAULT[e.type];
  return kind === undefined ? TONES.connection.colour : FAULT_COLOURS[kind];
}

/** What was done to a client (a consumer or the publisher), as marks: the orchestrator's events naming it. */
function eventMarks(run: JsonRun, name: string): TimelineMark[] {
  const { ofEvent } = clocks(run);
  return run.events.flatMap((e) => {
    const what = 'consumer' in e && e.consumer === name ? eventText(e) : undefined;
    return what === undefined ? [] : [{ t: ofEvent(e.at), what, colour: eventColour(e) }];
  });
}

const faultSpan = (f: Fault): TimelineSpan => ({
  from: f.from,
  to: f.to,
  what: faultWindow(f),
  colour: FAULT_COLOURS[f.kind],
  kind: 'fault',
});

const MARK_TEXT: Record<SubscriberMark['what'], (offset: number) => [string, Tone]> = {
  subscribed: (o) => [`subscribed at offset ${o}`, 'connection'],
  'drops started': (o) => [`drops started at offset ${o}`, 'drops'],
  'drops ended': (o) => [`drops ended (offset ${o} accepted)`, 'drops'],
  lagged: (o) => [`lagged: queue discarded, LAG from offset ${o + 1}`, 'recovery'],
  'resume requested': (o) => [`RESUME from offset ${o}`, 'recovery'],
  'delta sent': (o) => [`delta sent up to offset ${o}`, 'recovery'],
  disconnected: (o) => [`disconnected as a slow consumer at offset ${o}`, 'connection'],
};

/** When a consumer's subscription ended without the broker saying so in a mark: the orchestrator saw it crash or end.
 * */
const SUBSCRIPTION_END: Partial<Record<RunEvent['type'], string>> = {
  crash: 'dropping until it crashed',
  'consumer-ended': 'dropping until it ended',
};

type DropMark = { t: number; what: SubscriberMark['what'] | 'subscription ended'; until?: string };

/**
 * Runs of drops, from each `drops started` to the next `drops ended` or
 * disconnect. A subscription that ends mid-run (a crash, endSubscriber) writes
 * neither: its run ends at that end when the orchestrator saw it, else at the
 * name's next `subscribed` (the successor's own drops start a run of their own).
 * A run ends only when an event is accepted again, so one still open when
 * publishing stopped (the seed's: it stops at the thaw) ends there: nothing was
 * published, so nothing dropped, after it. When the broker cut the marks
 * (`cut` > 0), a run still open may have ended in one not kept: the span says so.
 */
function dropSpans(marks: DropMark[], end: number, cut = 0): TimelineSpan[] {
  const spans: TimelineSpan[] = [];
  const close = (from: number, to: number, what: string) =>
    spans.push({ from, to: Math.max(from, to), what, colour: TONES.drops.colour, kind: 'drops' });
  let from: number | undefined;
  for (const m of [...marks].sort((a, b) => a.t - b.t)) {
    if (from === undefined) {
      if (m.what === 'drops started') from = m.t;
      continue;
    }
    if (m.what === 'drops ended' || m.what === 'disconnected') close(from, m.t, 'dropping');
    else if (m.what === 'subscribed')
      close(from, m.t, 'dropping until it subscribed again (its subscription ended mid-run)');
    else if (m.what === 'subscription ended') close(from, m.t, m.until ?? 'dropping until its subscription ended');
    else continue;
    from = undefined;
  }
  if (from !== undefined)
    close(
      from,
      end,
      cut > 0 ? `dropping, end unknown: ${cut} later marks were not kept` : 'dropping until publishing ended',
    );
  return spans;
}

/** When the publisher said it was done, else the axis' end. */
function publishingEnded(run: JsonRun, axis: TimeAxis): number {
  const done = run.events.find((e) => e.type === 'publisher-done');
  return done === undefined ? axis.end : clocks(run).ofEvent(done.at);
}

function consumerRow(run: JsonRun, consumer: JsonRun['consumers'][number], axis: TimeAxis): TimelineRow {
  const { ofEvent, ofWall } = clocks(run);
  const mine = run.events.filter((e) => 'consumer' in e && e.consumer === consumer.name);
  const events = eventMarks(run, consumer.name);
  const subscriber = run.broker?.subscribers[consumer.name];
  const brokerMarks = (subscriber?.marks ?? []).map((m) => ({ ...m, t: ofWall(m.at) }));
  const atBroker = brokerMarks.map((m) => {
    const [what, tone] = MARK_TEXT[m.what](m.offset);
    return { t: m.t, what, colour: TONES[tone].colour };
  });
  const cut = subscriber?.marksDropped ?? 0;
  const last = brokerMarks.at(-1);
  const cutMark =
    cut > 0 && last !== undefined
      ? [
          {
            t: last.t,
            what: `${cut} later marks not kept: the broker keeps only the first ${brokerMarks.length}`,
            colour: TONES.connection.colour,
          },
        ]
      : [];
  const ends = mine.flatMap((e) => {
    const until = SUBSCRIPTION_END[e.type];
    return until === undefined ? [] : [{ t: ofEvent(e.at), what: 'subscription ended' as const, until }];
  });
  const syncs = (consumer.recovery?.syncs ?? []).map((s) => ({
    t: ofWall(s.at),
    what: `${s.kind} applied (${s.keys} keys, to offset ${s.offset})`,
    colour: TONES.applied.colour,
  }));
  const restored = consumer.restoredFrom;
  const resumes = consumer.resumes.map((r, i) => ({
    t: ofWall(r.at),
    what: resumeWords(r, i === 0 && restored !== null && r.from === restored.offset),
    colour: r.outcome === 'latest' ? TONES.connection.colour : TONES.recovery.colour,
  }));
  const faults = consumerFaults(run, consumer).map(faultSpan);
  const drops = dropSpans([...brokerMarks, ...ends], publishingEnded(run, axis), cut);
  const stale = consumer.staleSpans.map(([from, to]) => ({
    from,
    to,
    what: 'stale: heard nothing from the broker',
    colour: STALE_COLOUR,
    kind: 'stale' as const,
  }));
  return {
    name: consumer.name,
    marks: [...events, ...atBroker, ...cutMark, ...syncs, ...resumes],
    spans: [...faults, ...drops, ...stale],
  };
}

/**
 * The broker's outages as a fault on its own row, with a mark where it was
 * killed and where it came back (what its last start found on disk). Its
 * subscriber marks and blocked writes are its last incarnation's: the dead
 * one's report died with it.
 */
function brokerRow(run: JsonRun): TimelineRow {
  const { ofWall } = clocks(run);
  const blocked = Object.entries(run.broker?.subscribers ?? {}).flatMap(([name, s]) =>
    s.blockedWrites.map((w) => ({
      from: ofWall(w.startedAt),
      to: ofWall(w.startedAt + w.ms),
      what: `write to ${name} blocked ${(w.ms / 1000).toFixed(2)} s`,
      colour: '#9ca3af',
      kind: 'blocked' as const,
    })),
  );
  const outages = brokerFaults(run).map(faultSpan);
  const recovered = run.broker?.recovered;
  const back =
    run.durable === null
      ? 'restarted: empty, in a new epoch'
      : recovered
        ? `restarted: recovered ${recovered.records} records (${recovered.tornTail} torn), same epoch`
        : 'restarted';
  const marks = run.brokerOutages.flatMap((o, i) => [
    { t: o.from, what: 'killed (SIGKILL)', colour: FAULT_COLOURS.crash },
    // What a start found on disk is known only for the last one (its report); earlier ones just came back.
    { t: o.to, what: i === run.brokerOutages.length - 1 ? back : 'restarted', colour: FAULT_COLOURS.crash },
  ]);
  return { name: 'broker', marks, spans: [...outages, ...blocked] };
}

/** The publisher's row: its start, reconnects and `done`, and its link's faults (the axis's, so the row and the shading
 * agree). */
function publisherRow(run: JsonRun, axis: TimeAxis): TimelineRow {
  const { ofEvent } = clocks(run);
  const done = run.events.flatMap((e) =>
    e.type === 'publisher-done'
      ? [{ t: ofEvent(e.at), what: `done: ${e.published} changes published`, colour: TONES.connection.colour }]
      : [],
  );
  const link = eventMarks(run, PUBLISHER);
  return {
    name: 'publisher',
    marks: [{ t: 0, what: 'publishing started', colour: TONES.connection.colour }, ...link, ...done],
    spans: axis.faults.filter((f) => f.consumer === PUBLISHER).map(faultSpan),
  };
}

/**
 * Publisher, broker, then each consumer in report order; marks in time order, only what lies on
 * the axis. Each of `merged` (a crowded run's healthy consumers, the listed ones past the timeline's
 * rows: crowd-chart.ts) is one row named by its label, before the consumers' own (timeline-fold.ts).
 */
export function timelineRows(
  run: JsonRun,
  axis: TimeAxis,
  merged: Array<{ label: string; names: string[] }> = [],
): TimelineRow[] {
  const onAxis = (t: number) => t >= 0 && t <= axis.end;
  const clip = (row: TimelineRow): TimelineRow => ({
    name: row.name,
    marks: row.marks.filter((m) => onAxis(m.t)).sort((a, b) => a.t - b.t),
    spans: row.spans
      .filter((s) => s.to >= 0 && s.from <= axis.end)
      .map((s) => ({ ...s, from: Math.max(0, s.from), to: Math.min(axis.end, s.to) })),
  });
  const rowsOf = (consumers: JsonRun['consumers']) => consumers.map((c) => clip(consumerRow(run, c, axis)));
  const inGroup = new Set(merged.flatMap((g) => g.names));
  const groups = merged
    .filter((g) => g.names.length > 0)
    .map((g) => mergeRows(g.label, rowsOf(run.consumers.filter((c) => g.names.includes(c.name))), axis));
  return [
    ...[publisherRow(run, axis), brokerRow(run)].map(clip),
    ...groups,
    ...rowsOf(run.consumers.filter((c) => !inGroup.has(c.name))),
  ];
}
