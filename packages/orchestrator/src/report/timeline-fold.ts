import type { TimeAxis } from './time-axis.js';

/** A row of the HTML report's timeline (timeline-rows.ts builds them, svg-timeline.ts draws them): its marks and spans.
 * */
export interface TimelineMark {
  t: number;
  what: string;
  colour: string;
}

export interface TimelineSpan {
  from: number;
  to: number;
  what: string;
  colour: string;
  /** A fault window on its consumer's row, drops at the broker, a write the broker waited on, or a time the consumer
   * was stale. */
  kind: 'fault' | 'drops' | 'blocked' | 'stale';
}

export interface TimelineRow {
  name: string;
  marks: TimelineMark[];
  spans: TimelineSpan[];
}

/**
 * A crowded run's healthy consumers (crowd.ts) on one timeline row instead of a row each. Their
 * marks are gathered per colour into slots of 1/SLOTS of the axis, one mark per slot that says how
 * many it stands for and what they were, marks that differ only in their figures counted together
 * with each figure's range ("51× lagged: queue discarded, LAG from offset 156-179"); their spans (a
 * stale time; a drop or a fault would have listed the consumer) become one span per overlapping run.
 */

/** Slots along the axis: ~20 px each on the timeline's 1,168 px. */
const SLOTS = 60;
/** Kinds of mark one merged mark names before it only counts. */
const NAMED = 3;
const FIGURE = /\d+(?:\.\d+)?/g;

/** Marks' words counted by kind, a kind being the words with their figures left out; each figure as its range. */
function kindsOf(whats: string[]): Array<{ text: string; count: number }> {
  const kinds = new Map<string, { count: number; ranges: Array<[number, number]> }>();
  for (const what of whats) {
    const key = what.replace(FIGURE, '#');
    const figures = (what.match(FIGURE) ?? []).map(Number);
    const kind = kinds.get(key) ?? { count: 0, ranges: figures.map((n): [number, number] => [n, n]) };
    kind.count++;
    figures.forEach((n, i) => (kind.ranges[i] = [Math.min(kind.ranges[i]![0], n), Math.max(kind.ranges[i]![1], n)]));
    kinds.set(key, kind);
  }
  return [...kinds].map(([key, { count, ranges }]) => {
    let i = 0;
    const text = key.replace(/#/g, () => {
      const [low, high] = ranges[i++]!;
      return low === high ? String(low) : `${low}-${high}`;
    });
    return { text, count };
  });
}

function mergeMarks(marks: TimelineMark[], axis: TimeAxis): TimelineMark[] {
  const slots = new Map<string, TimelineMark[]>();
  for (const m of marks) {
    const key = `${Math.floor((m.t / Math.max(axis.end, 1e-9)) * SLOTS)} ${m.colour}`;
    slots.set(key, [...(slots.get(key) ?? []), m]);
  }
  return [...slots.values()]
    .map((group) => {
      const kinds = kindsOf(group.map((m) => m.what)).sort((a, b) => b.count - a.count);
      const named = kinds.slice(0, NAMED).map((k) => `${k.count}× ${k.text}`);
      const more = kinds.length > NAMED ? `; ${kinds.length - NAMED} other kinds` : '';
      return { t: Math.min(...group.map((m) => m.t)), what: named.join('; ') + more, colour: group[0]!.colour };
    })
    .sort((a, b) => a.t - b.t);
}

function mergeSpans(spans: TimelineSpan[]): TimelineSpan[] {
  const merged: Array<TimelineSpan & { count: number }> = [];
  for (const s of [...spans].sort((a, b) => a.kind.localeCompare(b.kind) || a.from - b.from)) {
    const last = merged.at(-1);
    if (last !== undefined && last.kind === s.kind && s.from <= last.to) {
      last.to = Math.max(last.to, s.to);
      last.count++;
    } else merged.push({ ...s, count: 1 });
  }
  return merged.map(({ count, ...s }) => ({
    ...s,
    what: `${s.what} (${count} span${count === 1 ? '' : 's'} of theirs)`,
  }));
}

/** The rows of these consumers as one row named `name`. */
export function mergeRows(name: string, rows: TimelineRow[], axis: TimeAxis): TimelineRow {
  return {
    name,
    marks: mergeMarks(
      rows.flatMap((r) => r.marks),
      axis,
    ),
    spans: mergeSpans(rows.flatMap((r) => r.spans)),
  };
}
