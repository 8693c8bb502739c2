import type { JsonConfig, JsonRun } from './document.js';
import { duration } from './units.js';

/**
 * Reports at hundreds of consumers. Up to CROWD consumers every report lists each of them, as it
 * always has. Above it, the text and HTML reports fold the healthy consumers that have nothing to
 * say into one summary (how many, how many correct, their latency) and show every other consumer
 * in full: each faulted, foreign or late one, and each healthy one that ended wrong or unknown, or
 * that the broker dropped events for or cut off. Healthy means no fault, as everywhere in the
 * document (its healthy latency, a faulted consumer's p99 beside the healthy ones'): a foreign or
 * late consumer counts among the healthy, and is listed. `--json` keeps every consumer.
 *
 * Why 12: at 12 the live view's rows and its seven lines of frame (title, phase, publisher, faults,
 * footer, blanks) still fit a 24-line terminal, and a mode's text section one screen; past it a
 * list of consumers that each say "CORRECT" stops being read. The demo (3 consumers) and every
 * end-to-end test (none over 12) keep their reports exactly; bench's scale points from 25 up fold.
 */
export const CROWD = 12;
export const crowded = (consumers: number): boolean => consumers > CROWD;

type Consumer = JsonRun['consumers'][number];

/**
 * A healthy consumer whose entry would say nothing but "CORRECT": no fault, ours (not
 * --consumer-cmd), there from the start (not --join-late), found right by the checker, and nothing
 * bad befell it at the broker. Its recovery (lag signals, resumes), its staleness and a digest that
 * could not be checked are counted in the summary instead; a digest that differs is not.
 */
function unremarkable(c: Consumer, run: JsonRun, config: Pick<JsonConfig, 'joinLate'>): boolean {
  const queue = run.broker?.subscribers[c.name];
  return (
    !c.faulted &&
    c.command === null &&
    c.name !== config.joinLate &&
    c.verdict === 'valid' &&
    c.wrongCount === 0 &&
    c.unexpected === 0 &&
    c.unexplained === 0 &&
    c.endedEarly === null &&
    c.contract.length === 0 &&
    c.digest?.match !== false &&
    (queue?.dropped ?? 0) === 0 &&
    (c.recovery?.disconnects ?? 0) === 0
  );
}

export interface Fold {
  /** The consumers listed one by one, in report order: every one when the run is not crowded. */
  shown: Consumer[];
  /** The healthy consumers with nothing to say, in report order: none when the run is not crowded. */
  folded: Consumer[];
  /** Every healthy consumer (no fault: the document's sense, as in its healthy latency), folded or not: what the
   * summary's counts and latency are over. */
  healthy: Consumer[];
}

/** Which consumers a report lists one by one and which it folds into the healthy summary. */
export function foldConsumers(run: JsonRun, config: Pick<JsonConfig, 'joinLate'>): Fold {
  const healthy = run.consumers.filter((c) => !c.faulted);
  if (!crowded(run.consumers.length)) return { shown: run.consumers, folded: [], healthy };
  const quiet = new Set(run.consumers.filter((c) => unremarkable(c, run, config)));
  return {
    shown: run.consumers.filter((c) => !quiet.has(c)),
    folded: run.consumers.filter((c) => quiet.has(c)),
    healthy,
  };
}

/** The middle value (the lower of the two middle ones for an even count: a value some consumer had). */
const median = (sorted: number[]): number => sorted[Math.floor((sorted.length - 1) / 2)]!;

/** The consumer with the largest value of `pick`, and that value; null when none has one. */
function worst(
  consumers: Consumer[],
  pick: (c: Consumer) => number | undefined,
): { name: string; value: number } | null {
  let best: { name: string; value: number } | null = null;
  for (const c of consumers) {
    const value = pick(c);
    if (value !== undefined && (best === null || value > best.value)) best = { name: c.name, value };
  }
  return best;
}

/** Each healthy consumer's publish-to-apply over the run, as a distribution over the consumers: none when none applied
 * anything. */
export interface HealthyLatency {
  /** How many of them have a latency (applied at least one event). */
  consumers: number;
  p50Median: number;
  p99Median: number;
  p99Worst: { name: string; value: number };
  maxWorst: { name: string; value: number };
}

export interface HealthySummary {
  count: number;
  correct: number;
  /** Healthy ones listed one by one anyway (wrong, unknown, dropped for, cut off, a digest that differs). */
  shownBelow: number;
  folded: number;
  applied: { min: number; max: number } | null;
  latency: HealthyLatency | null;
  digests: { match: number; unchecked: number; error: string | null };
  /** Of the folded: how many were sent lag signals, and the signals, resumes and deltas in all. */
  lagged: { consumers: number; lags: number; resumes: number; deltas: number };
  /** Of the folded: how many resubscribed (a broker restart, a checkpoint), and how many went stale, the longest. */
  resubscribed: number;
  stale: { consumers: number; longest: { name: string; value: number } | null };
}

export function summariseHealthy(fold: Fold): HealthySummary {
  const { healthy, folded } = fold;
  const applied = folded.map((c) => c.applied).filter((n): n is number => n !== null);
  const withLatency = healthy.filter((c) => c.latency?.all);
  const all = (c: Consumer) => c.latency?.all ?? undefined;
  const p99s = withLatency.map((c) => all(c)!.p99).sort((a, b) => a - b);
  const p50s = withLatency.map((c) => all(c)!.p50).sort((a, b) => a - b);
  const lagging = folded.filter((c) => (c.recovery?.lags ?? 0) > 0);
  const stale = folded.filter((c) => (c.staleMs ?? 0) > 0);
  const unchecked = folded.filter((c) => c.digest === null || c.digest.match === null);
  return {
    count: healthy.length,
    correct: healthy.filter((c) => c.verdict === 'valid' && c.wrongCount === 0).length,
    shownBelow: healthy.length - folded.length,
    folded: folded.length,
    applied: applied.length === 0 ? null : { min: Math.min(...applied), max: Math.max(...applied) },
    latency:
      withLatency.length === 0
        ? null
        : {
            consumers: withLatency.length,
            p50Median: median(p50s),
            p99Median: median(p99s),
            p99Worst: worst(withLatency, (c) => all(c)?.p99)!,
            maxWorst: worst(withLatency, (c) => all(c)?.max)!,
          },
    digests: {
      match: folded.filter((c) => c.digest?.match === true).length,
      unchecked: unchecked.length,
      error: unchecked.find((c) => c.digest?.error)?.digest?.error ?? null,
    },
    lagged: {
      consumers: lagging.length,
      lags: lagging.reduce((n, c) => n + c.recovery!.lags, 0),
      resumes: lagging.reduce((n, c) => n + c.recovery!.resumes, 0),
      deltas: lagging.reduce((n, c) => n + c.recovery!.deltas, 0),
    },
    resubscribed: folded.filter((c) => c.resumes.length > 0).length,
    stale: { consumers: stale.length, longest: worst(stale, (c) => c.staleMs ?? undefined) },
  };
}

/**
 * The summary in words, one sentence a line, for the text (indented under its first line) and the
 * HTML (a paragraph each): the first line says how many and how many correct. None without any.
 */
export function healthyLines(s: HealthySummary): string[] {
  if (s.count === 0) return [];
  const others = s.shownBelow === 0 ? '' : `; ${s.shownBelow} of them listed one by one below`;
  const lines = [`${s.count} healthy consumers (no fault): ${s.correct} CORRECT${others}`];
  if (s.folded > 0) {
    const applied =
      s.applied === null
        ? ''
        : `applied ${s.applied.min === s.applied.max ? s.applied.min : `${s.applied.min}-${s.applied.max}`}; `;
    const unchecked =
      s.digests.unchecked === 0
        ? ''
        : `, ${s.digests.unchecked} could not be checked${s.digests.error === null ? '' : ` (${s.digests.error})`}`;
    lines.push(`the ${s.folded} not listed: ${applied}digest matches the broker's for ${s.digests.match}${unchecked}`);
  }
  const l = s.latency;
  if (l !== null) {
    lines.push(
      `publish-to-apply over the run, each one's (${l.consumers}): p50 median ${l.p50Median} ms; p99 median ` +
        `${l.p99Median} ms, worst ${l.p99Worst.value} ms (${l.p99Worst.name}); max ${l.maxWorst.value} ms (` +
        `${l.maxWorst.name})`,
    );
  }
  const g = s.lagged;
  if (g.consumers > 0)
    lines.push(
      `lag signals to ${g.consumers} of them (${g.lags} in all), ${g.resumes} resumes asked, ${g.deltas} deltas ` +
        `re-sent: each ended correct`,
    );
  if (s.resubscribed > 0) lines.push(`${s.resubscribed} of them subscribed again during the run (each ended correct)`);
  const longest = s.stale.longest;
  if (longest !== null)
    lines.push(
      `${s.stale.consumers} of them went stale at some point, the longest ${duration(longest.value)} (${longest.name})`,
    );
  return lines;
}

/**
 * Listed consumers whose entries read the same but for their names, as one entry that names them
 * all: in a crowded run many share one fate (a pool's members fall behind together, the broker drops
 * the same offsets for each). `entry` is the renderer's own entry without the name, so nothing it
 * would have said of one of them is lost. In order of each group's first member.
 */
export function groupAlike<T extends { name: string }>(
  items: T[],
  entry: (item: T) => string,
): Array<{ first: T; others: string[] }> {
  const groups = new Map<string, { first: T; others: string[] }>();
  for (const item of items) {
    const key = entry(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { first: item, others: [] });
    else group.others.push(item.name);
  }
  return [...groups.values()];
}

/** "the same for 3 more: consumer-251, consumer-252, consumer-253" */
export const alikeWords = (others: string[]): string => `the same for ${others.length} more: ${others.join(', ')}`;

/** At most `shown` items of a list, then how many more: "consumer-1, consumer-2 and 14 more"; every item when `shown`
 * is Infinity. */
export function someNames(items: string[], shown: number, separator = ', '): string {
  if (items.length <= shown) return items.join(separator);
  return `${items.slice(0, shown).join(separator)} and ${items.length - shown} more`;
}
