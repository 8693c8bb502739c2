import { crowded, type Fold } from './crowd.js';
import type { JsonRun } from './document.js';

/**
 * The HTML charts of a crowded run (crowd.ts): a chart with a line or a bar per consumer stops
 * being read long before 256. A few consumers keep their own series; the rest are drawn as one.
 */

/** Consumers a crowded divergence chart draws on their own (two series each: its legend stays a line or two). */
export const ALONE = 4;
/** Of the consumers 0 throughout, a crowded chart's title names this many. */
export const NAMED_QUIET = 8;
/** Consumers a crowded decile chart draws on their own; the others' mean is one more series (the palette has eight
 * colours). */
export const DECILE_ALONE = 7;
/** Listed consumers a crowded timeline gives a row of their own (28 px each); the rest share one. */
export const TIMELINE_ALONE = 24;

export interface Envelope {
  label: string;
  names: string[];
  /** Its diverged and its behind line. */
  colours: [string, string];
}

type Series = Record<string, Array<number | null>>;

/** Per sample, the largest value any of these consumers had (null where none had one): how far off the worst of them
 * was. */
export function envelope(names: string[], series: Series): Array<number | null> {
  const length = Math.max(0, ...names.map((n) => series[n]?.length ?? 0));
  return Array.from({ length }, (_, i) => {
    let most: number | null = null;
    for (const n of names) {
      const v = series[n]?.[i] ?? null;
      if (v !== null && (most === null || v > most)) most = v;
    }
    return most;
  });
}

const peak = (values: Array<number | null> | undefined): number => Math.max(0, ...(values ?? []).map((v) => v ?? 0));

/**
 * Who a crowded divergence chart draws alone: of the listed consumers ever off, the ALONE that
 * diverged most (then were most behind), in run order. The other listed ones ever off make one
 * envelope, the folded healthy ones ever off (behind only: a drop would have listed them) another.
 */
export function divergenceGroups(
  run: JsonRun,
  fold: Fold,
  everOff: (name: string) => boolean,
): { alone: string[]; envelopes: Envelope[] } {
  const { diverged, behind } = run.wrongOverTime;
  const listed = fold.shown.map((c) => c.name).filter(everOff);
  const ranked = [...listed].sort((a, b) => peak(diverged[b]) - peak(diverged[a]) || peak(behind[b]) - peak(behind[a]));
  const alone = new Set(ranked.slice(0, ALONE));
  const others = listed.filter((n) => !alone.has(n));
  const healthy = fold.folded.map((c) => c.name).filter(everOff);
  const envelopes: Envelope[] = [];
  if (others.length > 0)
    envelopes.push({
      label: `${others.length} other listed consumers`,
      names: others,
      colours: ['#be123c', '#475569'],
    });
  if (healthy.length > 0)
    envelopes.push({ label: `${healthy.length} healthy consumers`, names: healthy, colours: ['#fda4af', '#cbd5e1'] });
  return { alone: listed.filter((n) => alone.has(n)), envelopes };
}

/**
 * The decile chart's series: each wrong consumer's share of each tenth wrong. A crowded run with
 * more than DECILE_ALONE wrong consumers draws the most wrong ones and the others' mean.
 */
export function decileSeries(run: JsonRun): Series {
  const wrong = run.consumers.filter((c) => c.wrongCount > 0);
  const alone =
    crowded(run.consumers.length) && wrong.length > DECILE_ALONE
      ? [...wrong].sort((a, b) => b.wrongCount - a.wrongCount).slice(0, DECILE_ALONE)
      : wrong;
  const series: Series = Object.fromEntries(
    wrong.filter((c) => alone.includes(c)).map((c) => [c.name, c.wrongByDecile ?? []]),
  );
  const rest = wrong.filter((c) => !alone.includes(c));
  if (rest.length > 0) {
    series[`the other ${rest.length} wrong (mean)`] = Array.from({ length: 10 }, (_, d) => {
      const known = rest.map((c) => c.wrongByDecile?.[d]).filter((v): v is number => v !== undefined && v !== null);
      return known.length === 0 ? null : Math.round((known.reduce((a, b) => a + b, 0) / known.length) * 1000) / 1000;
    });
  }
  return series;
}

/**
 * The rows a crowded timeline merges: the folded healthy consumers into one, and the listed ones
 * past TIMELINE_ALONE into another; the faulted and foreign ones keep their own rows first, then
 * the others listed (wrong, dropped for), in run order. None when the run is not crowded.
 */
export function timelineMerges(run: JsonRun, fold: Fold): Array<{ label: string; names: string[] }> {
  if (!crowded(run.consumers.length)) return [];
  const first = fold.shown.filter((c) => c.faulted || c.command !== null);
  const alone = new Set([...first, ...fold.shown.filter((c) => !first.includes(c))].slice(0, TIMELINE_ALONE));
  const rest = fold.shown.filter((c) => !alone.has(c)).map((c) => c.name);
  return [
    { label: `${fold.folded.length} healthy`, names: fold.folded.map((c) => c.name) },
    { label: `${rest.length} more listed`, names: rest },
  ];
}
