/**
 * The live view, rendered from hand-built snapshots with ink-testing-library.
 * (The README names the tmux check for the real terminal; the notes hold a capture.)
 */
import { render } from 'ink-testing-library';
import { createElement as h } from 'react';
import { Dashboard, sparkline } from '@state-divergence/orchestrator/tui';
import type { LiveSnapshot } from '@state-divergence/orchestrator';

const snapshot: LiveSnapshot = {
  mode: 'lossy',
  phase: 'stalled',
  seconds: 7.5,
  totalSeconds: 20,
  faults: [
    { kind: 'stall', consumer: 'consumer-3', from: 4, to: 12 },
    { kind: 'slow', consumer: 'consumer-1', from: 2, to: 6, percent: 80 },
  ],
  keys: 2000,
  published: 3000,
  publisherRate: 401,
  publisherBacklog: 0,
  brokerDown: false,
  consumers: [
    { name: 'consumer-1', foreign: false, faulted: false, state: 'applying', applied: 3000, wrongNow: 0, stale: false, diverged: 0, behind: 3, dropped: 0, series: [0, 0, 0], divergedSeries: [0, 0, 0] },
    { name: 'consumer-3', foreign: false, faulted: true, state: 'STALLED', applied: 1400, wrongNow: 9, stale: true, diverged: 312, behind: 520, dropped: 1088, series: [0, 9, 9], divergedSeries: [0, 100, 312] },
  ],
};

describe('live view', () => {
  test('shows the mode, the phase with its progress, and one row per consumer', () => {
    const frame = render(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!;
    expect(frame).toContain('at-most-once (production defaults)');
    expect(frame).toMatch(/stalled\s+█+░+ 7\.5s \/ 20s/);
    expect(frame).toMatch(/consumer-1\s+applying\s+applied\s+3000\s+diverged\s+0 \/ 2000\s+behind\s+3/);
    // Frozen, yet its count is current: diverged comes from the broker, not from asking it.
    expect(frame).toMatch(/consumer-3\s+STALLED\s+applied\s+1400\s+diverged\s+312 \/ 2000\s+behind\s+520/);
    expect(frame).not.toContain('last known');
    expect(frame).toContain('rate 401/s (last 2 s)');
    expect(frame).not.toContain('backlog'); // none held back
    expect(frame).toContain('broker drops: consumer-3 1088');
    expect(frame).toContain('a consumer is never told it is wrong');
    expect(frame).toContain('[q] quit');
  });

  test('while the broker is down (killed, its successor not ready) the publisher line says so instead of its drops', () => {
    const frame = render(h(Dashboard, { snapshot: { ...snapshot, brokerDown: true }, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!;
    expect(frame).toContain('broker DOWN (killed; restarting)');
    expect(frame).not.toContain('broker drops');
  });

  test('the footer states every fault window, as the report shades them', () => {
    const frame = render(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!;
    expect(frame).toContain('faults: consumer-3 stalled 4-12 s, consumer-1 slowed 2-6 s (80 %)');
    expect(render(h(Dashboard, { snapshot: { ...snapshot, faults: [] }, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!).not.toContain('faults:');
  });

  test('the lossy footer is only for lossy; before the first sample the rows are empty, not invented', () => {
    const frame = render(h(Dashboard, { snapshot: undefined, phase: { mode: 'resync', phase: 'converged', seconds: 0 } })).lastFrame()!;
    expect(frame).toContain('resync (snapshot + lag signal + delta)');
    expect(frame).not.toContain('never told');
    expect(frame).not.toContain('consumer-');
  });

  test('changes flow control holds back are the publisher\'s backlog, shown on its line', () => {
    const frame = render(h(Dashboard, { snapshot: { ...snapshot, publisherBacklog: 130 }, phase: { mode: 'lossless', phase: 'stalled', seconds: 7.5 } })).lastFrame()!;
    expect(frame).toContain('backlog 130 keys held back');
  });

  test('a consumer someone else wrote is starred, and the footer says what the star means', () => {
    const foreign = { ...snapshot, consumers: snapshot.consumers.map((c) => (c.name === 'consumer-3' ? { ...c, foreign: true } : c)) };
    const frame = render(h(Dashboard, { snapshot: foreign, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!;
    expect(frame).toMatch(/consumer-3\*\s+STALLED/);
    expect(frame).toContain('* a consumer someone else wrote');
    expect(render(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } })).lastFrame()!).not.toContain('someone else');
  });

  test('sparklines scale to the largest value and leave zeros blank', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(' ▁▂▄█');
    expect(sparkline([0, 0])).toBe('  ');
    expect(sparkline(Array.from({ length: 40 }, (_, i) => i))).toHaveLength(24);
  });
});
