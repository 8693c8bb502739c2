/**
 * The live view at the two terminal sizes people have: 80×24 (most terminal windows' default)
 * and 120×40. At 80 columns its rows used to wrap inside their cells and overlap ("consumer-1applying
 * applied 2380diverged 0 / 200behind 9"), and the frame outgrew the screen. Now every row is one line
 * that fits, and the frame fits the terminal's height.
 */
import { createElement as h } from 'react';
import { Dashboard } from '@state-divergence/orchestrator/tui';
import type { LiveSnapshot } from '@state-divergence/orchestrator';
import { frameAt } from './helpers/ink-frame.js';

type Live = LiveSnapshot['consumers'][number];
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const applying = (name: string, applied: number, behind: number): Live => ({
  name,
  foreign: false,
  faulted: false,
  state: 'applying',
  applied,
  wrongNow: 0,
  stale: false,
  diverged: 0,
  behind,
  dropped: 0,
  staleness: { now: false, ms: 0 },
  series: [0, 0],
  divergedSeries: [0, 0],
});
// `--mode resync --duration 2` mid-stall: the frozen one stale, a healthy one resyncing.
const consumers: Live[] = [
  applying('consumer-1', 2380, 9),
  { ...applying('consumer-2', 2371, 18), state: 'resyncing' },
  {
    ...applying('consumer-3', 1412, 968),
    faulted: true,
    state: 'STALLED',
    stale: true,
    diverged: 0,
    staleness: { now: true, ms: 1_712 },
  },
];
const snapshot = (cs: Live[]): LiveSnapshot => ({
  mode: 'resync',
  phase: 'stalled',
  seconds: 3.1,
  totalSeconds: 10,
  faults: [{ kind: 'stall', consumer: 'consumer-3', from: 2, to: 6 }],
  keys: 2000,
  published: 2380,
  publisherRate: 401,
  publisherBacklog: 0,
  brokerDown: false,
  publisherLink: null,
  consumers: cs,
});
const phase = { mode: 'resync' as const, phase: 'stalled' as const, seconds: 3.1 };

/** Every line of the frame, without colour codes. */
const linesAt = (s: LiveSnapshot, columns: number, rows: number) =>
  stripAnsi(frameAt(h(Dashboard, { snapshot: s, phase, size: { columns, rows } }), columns, rows)).split('\n');

describe.each([
  [80, 24],
  [120, 40],
])('at %i×%i', (columns, rows) => {
  const lines = linesAt(snapshot(consumers), columns, rows);

  test('every line fits the width, and the frame fits the height', () => {
    expect(lines.filter((l) => l.length > columns)).toEqual([]);
    expect(lines.length).toBeLessThanOrEqual(rows);
  });

  test('each consumer is one line with all its cells, in order, and no other consumer on it', () => {
    for (const [c, cells] of [
      ['consumer-1', /^ consumer-1 +applying +applied +2380 +diverged +0( \/ 2000)? +behind +9\b/],
      ['consumer-2', /^ consumer-2 +resyncing +applied +2371 +diverged +0( \/ 2000)? +behind +18\b/],
      ['consumer-3', /^ consumer-3 +STALLED +applied +1412 +diverged +0( \/ 2000)? +behind +968\b.* STALE 1\.7 s$/],
    ] as const) {
      const mine = lines.filter((l) => l.startsWith(` ${c} `));
      expect([c, mine.length]).toEqual([c, 1]);
      expect(mine[0]).toMatch(cells);
      expect(mine[0]!.match(/consumer-\d/g)).toHaveLength(1);
    }
  });

  test('the keyspace is said once, on the rows when they have room, else in the title', () => {
    const onRows = lines.filter((l) => l.includes(' / 2000')).length;
    if (columns >= 120) expect(onRows).toBe(3);
    else {
      expect(onRows).toBe(0);
      expect(lines[0]).toMatch(/\(2000 keys\)$/);
    }
    expect(lines.filter((l) => /^ ?2000\s*$/.test(l))).toEqual([]); // never a line of its own
  });
});

test('at 80×24 a run of 256 consumers keeps its frame on the screen: fewer rows of their own, the rest counted', () => {
  const many = Array.from({ length: 256 }, (_, k) => applying(`consumer-${k + 1}`, 2990, k % 13));
  for (let k = 0; k < 30; k++)
    many[k * 8] = { ...many[k * 8]!, faulted: true, state: 'STALLED', diverged: 100 + k, dropped: 900 };
  const small = linesAt(snapshot(many), 80, 24);
  expect(small.length).toBeLessThanOrEqual(24);
  expect(small.filter((l) => l.length > 80)).toEqual([]);
  const own = small.filter((l) => /^ consumer-\d+ /.test(l)).length;
  expect(own).toBeGreaterThan(0);
  expect(small.join('\n')).toMatch(new RegExp(`^ \\+ ${30 - own} more faulted or off, no room for their rows: `, 'm'));
  // The taller terminal has room for more of them.
  const tall = linesAt(snapshot(many), 120, 40);
  expect(tall.filter((l) => /^ consumer-\d+ /.test(l)).length).toBeGreaterThan(own);
  expect(tall.length).toBeLessThanOrEqual(40);
});
