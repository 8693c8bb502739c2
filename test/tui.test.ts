/**
 * The live view, rendered from hand-built snapshots with ink-testing-library.
 * (The real terminal, checked in tmux: a capture is in docs/USAGE.md.)
 */
import { createElement as h } from 'react';
import { Dashboard, sparkline } from '@state-divergence/orchestrator/tui';
import type { LiveSnapshot } from '@state-divergence/orchestrator';
import { textProgress } from '@state-divergence/orchestrator/internal';
import { frameAt } from './helpers/ink-frame.js';

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
  publisherLink: null,
  consumers: [
    {
      name: 'consumer-1',
      foreign: false,
      faulted: false,
      state: 'applying',
      applied: 3000,
      wrongNow: 0,
      stale: false,
      diverged: 0,
      behind: 3,
      dropped: 0,
      staleness: null,
      series: [0, 0, 0],
      divergedSeries: [0, 0, 0],
    },
    {
      name: 'consumer-3',
      foreign: false,
      faulted: true,
      state: 'STALLED',
      applied: 1400,
      wrongNow: 9,
      stale: true,
      diverged: 312,
      behind: 520,
      dropped: 1088,
      staleness: null,
      series: [0, 9, 9],
      divergedSeries: [0, 100, 312],
    },
  ],
};

describe('live view', () => {
  test('shows the mode, the phase with its progress, and one row per consumer', () => {
    const frame = frameAt(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } }));
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
    const frame = frameAt(
      h(Dashboard, {
        snapshot: { ...snapshot, brokerDown: true },
        phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 },
      }),
    );
    expect(frame).toContain('broker DOWN (killed; restarting)');
    expect(frame).not.toContain('broker drops');
  });

  test('the footer states every fault window, as the report shades them', () => {
    const frame = frameAt(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } }));
    expect(frame).toContain('faults: consumer-3 stalled 4-12 s, consumer-1 slowed 2-6 s (80 %)');
    expect(
      frameAt(
        h(Dashboard, {
          snapshot: { ...snapshot, faults: [] },
          phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 },
        }),
      ),
    ).not.toContain('faults:');
  });

  test('the lossy footer is only for lossy; before the first sample the rows are empty, not invented', () => {
    const frame = frameAt(
      h(Dashboard, { snapshot: undefined, phase: { mode: 'resync', phase: 'converged', seconds: 0 } }),
    );
    expect(frame).toContain('resync (snapshot + lag signal + delta)');
    expect(frame).not.toContain('never told');
    expect(frame).not.toContain('consumer-');
  });

  test("changes flow control holds back are the publisher's backlog, shown on its line", () => {
    const frame = frameAt(
      h(Dashboard, {
        snapshot: { ...snapshot, publisherBacklog: 130 },
        phase: { mode: 'lossless', phase: 'stalled', seconds: 7.5 },
      }),
    );
    expect(frame).toContain('backlog 130 keys held back');
  });

  test('a consumer someone else wrote is starred, and the footer says what the star means', () => {
    const foreign = {
      ...snapshot,
      consumers: snapshot.consumers.map((c) => (c.name === 'consumer-3' ? { ...c, foreign: true } : c)),
    };
    const frame = frameAt(
      h(Dashboard, { snapshot: foreign, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } }),
    );
    expect(frame).toMatch(/consumer-3\*\s+STALLED/);
    expect(frame).toContain('* a consumer someone else wrote');
    expect(frameAt(h(Dashboard, { snapshot, phase: { mode: 'lossy', phase: 'stalled', seconds: 7.5 } }))).not.toContain(
      'someone else',
    );
  });

  describe('a network fault and the stale signal', () => {
    // consumer-2 partitioned and cut off for 1.3 s so far; consumer-1 was stale 0.8 s earlier; consumer-3 tracks
    // nothing (lossy).
    const consumers = snapshot.consumers.map((c) => ({ ...c, state: 'applying' as const, diverged: 0, dropped: 0 }));
    const networked: LiveSnapshot = {
      ...snapshot,
      mode: 'resync',
      faults: [{ kind: 'partition', consumer: 'consumer-2', from: 1, to: 3 }],
      publisherLink: 'delay',
      consumers: [
        { ...consumers[0]!, staleness: { now: false, ms: 800 } },
        {
          ...consumers[0]!,
          name: 'consumer-2',
          faulted: true,
          state: 'PARTITIONED',
          staleness: { now: true, ms: 1_260 },
        },
        { ...consumers[1]!, staleness: null },
      ],
    };
    const phase = { mode: 'resync' as const, phase: 'stalled' as const, seconds: 2.3 };

    test("live view: the link fault as its state, STALE while it hears nothing, the time it was stale after; the publisher's link on its line", () => {
      const frame = frameAt(h(Dashboard, { snapshot: networked, phase }));
      expect(frame).toMatch(/consumer-2\s+PARTITIONED\s+applied\s+3000 .* STALE 1\.3 s/);
      expect(frame).toMatch(/consumer-1\s+applying\s+applied\s+3000 .* stale 0\.8 s/);
      expect(frame).not.toMatch(/consumer-3.*stale/i);
      expect(frame).toMatch(/broker drops: none\s+link delayed/);
      expect(frame).toContain('faults: consumer-2 partitioned 1-3 s');
    });

    test('a consumer never stale, or with no publisher link fault, shows neither', () => {
      const quiet = {
        ...networked,
        publisherLink: null,
        consumers: networked.consumers.map((c) => ({ ...c, staleness: c.staleness && { now: false, ms: 0 } })),
      };
      const frame = frameAt(h(Dashboard, { snapshot: quiet, phase }));
      expect(frame).not.toMatch(/stale|link /i);
    });

    test('plain progress lines say the same', () => {
      const lines: string[] = [];
      textProgress((line) => lines.push(line)).tick({ ...networked, phase: 'stalled', seconds: 2.3 });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('publisher link delayed');
      expect(lines[0]).toContain(
        'consumer-1 3000 behind 3 stale 0.8 s  consumer-2 3000 (PARTITIONED) behind 3 STALE 1.3 s  consumer-3 ' +
          '1400 behind 520',
      );
    });
  });

  test('sparklines scale to the largest value and leave zeros blank', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(' ▁▂▄█');
    expect(sparkline([0, 0])).toBe('  ');
    expect(sparkline(Array.from({ length: 40 }, (_, i) => i))).toHaveLength(24);
  });
});
