/**
 * The live view and the plain progress lines at hundreds of consumers (issue 21): the ones with
 * nothing going on folded into one row, every faulted, foreign or off one in a row of its own up
 * to LIVE_ROWS, the frame within 40 lines; 12 consumers or fewer listed one by one as before.
 */
import { createElement as h } from 'react';
import { Dashboard } from '@state-divergence/orchestrator/tui';
import type { LiveSnapshot } from '@state-divergence/orchestrator';
import { CROWD, LIVE_ROWS, textProgress } from '@state-divergence/orchestrator/internal';
import { frameAt } from './helpers/ink-frame.js';

type Live = LiveSnapshot['consumers'][number];
const name = (i: number) => `consumer-${i}`;

/** Applying, applied 2990-3000, behind 0-12, never stale. */
const quiet = (i: number): Live => ({
  name: name(i),
  foreign: false,
  faulted: false,
  state: 'applying',
  applied: 2990 + (i % 11),
  wrongNow: 0,
  stale: false,
  diverged: 0,
  behind: i % 13,
  dropped: 0,
  staleness: { now: false, ms: 0 },
  series: [0],
  divergedSeries: [0],
});
/** Frozen now: diverged, dropped for, stale. */
const frozen = (i: number): Live => ({
  ...quiet(i),
  faulted: true,
  state: 'STALLED',
  diverged: 300 + i,
  behind: 500,
  dropped: 1000 + i,
  staleness: { now: true, ms: 1_300 },
  divergedSeries: [0, 100, 300],
});

function snapshot(consumers: Live[]): LiveSnapshot {
  const faults = consumers
    .filter((c) => c.faulted)
    .map((c) => ({ kind: 'stall' as const, consumer: c.name, from: 4, to: 12 }));
  return {
    mode: 'resync',
    phase: 'stalled',
    seconds: 7.5,
    totalSeconds: 20,
    faults,
    keys: 2000,
    published: 3000,
    publisherRate: 401,
    publisherBacklog: 0,
    brokerDown: false,
    publisherLink: null,
    consumers,
  };
}

const phase = { mode: 'resync' as const, phase: 'stalled' as const, seconds: 7.5 };

/** The frame on a 120×40 terminal (the tmux check's). */
const frameOf = (s: LiveSnapshot): string =>
  frameAt(h(Dashboard, { snapshot: s, phase, size: { columns: 120, rows: 40 } }));
/** The consumers with a row of their own: a line that starts with a name. */
const rows = (frame: string) => frame.split('\n').flatMap((l) => /^ (consumer-\d+\*?) /.exec(l)?.[1] ?? []);

describe('the live view of 256 consumers', () => {
  // Six frozen, a foreign one, one the broker dropped for without a fault, one resyncing: each has a row.
  const special: Record<number, Live> = {
    7: frozen(7),
    40: frozen(40),
    80: frozen(80),
    120: frozen(120),
    160: frozen(160),
    200: frozen(200),
    230: { ...quiet(230), foreign: true },
    250: { ...quiet(250), dropped: 4, diverged: 2 },
    251: { ...quiet(251), state: 'resyncing' },
  };
  const consumers = Array.from({ length: 256 }, (_, k) => special[k + 1] ?? quiet(k + 1));
  const frame = frameOf(snapshot(consumers));

  test('every faulted, foreign or off consumer has its row, in run order; the other 247 share one', () => {
    expect(rows(frame)).toEqual([
      name(7),
      name(40),
      name(80),
      name(120),
      name(160),
      name(200),
      `${name(230)}*`,
      name(250),
      name(251),
    ]);
    expect(frame).toMatch(/^ 247 healthy +applying +applied 2990-3000 +diverged +0 \/ 2000 +behind  ≤ 12$/m);
    expect(frame).toMatch(
      /^ consumer-200 +STALLED +applied +2992 +diverged +500 \/ 2000 +behind +500 +▃█ +STALE 1\.3 s$/m,
    );
    expect(frame).not.toContain('more faulted or off');
  });

  test('it fits 40 lines, and the lists on one line say how many more', () => {
    expect(frame.split('\n').length).toBeLessThanOrEqual(40);
    expect(frame).toMatch(/broker drops: consumer-7 1007, consumer-40 1040 and 5 more$/m);
    expect(frame).toMatch(/^ faults: consumer-7 stalled 4-12 s, consumer-40 stalled 4-12 s and 4 more$/m);
  });

  test(`more than ${LIVE_ROWS} standing out: the harmed and the faulted ones off now, then the other faulted and foreign, then the healthy ones only late; the rest counted on one line; still 40 lines`, () => {
    // 40 faulted whose fault is still to come (nothing off yet), and consumer-250 diverged without one.
    const planned = consumers.map((c, k) =>
      k >= 100 && k < 140 ? { ...c, faulted: true } : k === 249 ? { ...quiet(250), diverged: 3 } : c,
    );
    const crowdedFrame = frameOf(snapshot(planned));
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => name(from + k));
    // Off now and faulted or harmed: the six frozen and consumer-250 (7); then 17 of the 40 planned (consumer-120 is
    // frozen); no room for
    // the other planned ones, the foreign consumer-230, nor consumer-251, healthy and only resyncing.
    expect(rows(crowdedFrame)).toEqual([
      name(7),
      name(40),
      name(80),
      ...range(101, 117),
      name(120),
      name(160),
      name(200),
      name(250),
    ]);
    expect(crowdedFrame).toMatch(
      /^ \+ 24 more faulted or off, no room for their rows: consumer-118, consumer-119, consumer-121, /m,
    );
    expect(crowdedFrame.split('\n').length).toBeLessThanOrEqual(40);
  });

  test('a thawed consumer keeps its row when a hundred healthy ones are stale (seen on a loaded 256-consumer run)', () => {
    const thawed = Array.from({ length: 256 }, (_, k) =>
      k === 255
        ? { ...quiet(256), faulted: true }
        : k < 100
          ? { ...quiet(k + 1), staleness: { now: true, ms: 1_400 } }
          : quiet(k + 1),
    );
    const shown = rows(frameOf(snapshot(thawed)));
    expect(shown).toHaveLength(LIVE_ROWS);
    expect(shown.at(-1)).toBe(name(256));
  });

  test('the plain progress line folds the same way', () => {
    const lines: string[] = [];
    textProgress((line) => lines.push(line)).tick(snapshot(consumers));
    expect(lines[0]).toMatch(
      /^\[resync\] {3}7\.5s {2}stalled {5}published 3000 {2}247 healthy 2990-3000 {2}consumer-7 2997 \(frozen\) diverged 307 behind 500 dropped 1007 STALE 1\.3 s {2}consumer-40 /,
    );
    expect([...lines[0]!.matchAll(/consumer-\d+\*? \d+/g)].map((m) => m[0].split(' ')[0])).toEqual(rows(frame));
  });
});

describe(`the threshold: ${CROWD} consumers`, () => {
  test(`${CROWD} are listed one by one (no healthy row); ${CROWD + 1} fold`, () => {
    const listed = frameOf(snapshot([frozen(1), ...Array.from({ length: CROWD - 1 }, (_, k) => quiet(k + 2))]));
    expect(rows(listed)).toEqual(Array.from({ length: CROWD }, (_, k) => name(k + 1)));
    expect(listed).not.toContain('healthy');
    const folded = frameOf(snapshot([frozen(1), ...Array.from({ length: CROWD }, (_, k) => quiet(k + 2))]));
    expect(rows(folded)).toEqual([name(1)]);
    expect(folded).toContain(`${CROWD} healthy`);
  });
});
