/**
 * The consumer's stale signal on a fake clock: when a span opens and closes, what it counts
 * (exactly, from timestamps), when each transition is said (once), and what it says about time
 * the process itself was not running (a freeze: its own timer came late).
 */
import { StaleTracker, STALE_SPANS_KEPT, type StaleTransitions } from '@state-divergence/consumer/internal';

const AFTER = 750;

function tracker(startAt = 1_000) {
  let now = startAt;
  const said: Array<['stale', number] | ['fresh', number, number]> = [];
  const transitions: StaleTransitions = {
    stale: (silentMs) => said.push(['stale', silentMs]),
    fresh: (staleMs, unawareMs) => said.push(['fresh', staleMs, unawareMs]),
  };
  const t = new StaleTracker(AFTER, transitions, () => now);
  /** Moves the clock, ticking the timer on its schedule as a running process would. */
  const run = (ms: number): void => {
    const until = now + ms;
    while (now + t.tickMs <= until) {
      now += t.tickMs;
      t.tick();
    }
    now = until;
  };
  /** Moves the clock with no tick at all: the process is frozen. */
  const freeze = (ms: number): void => void (now += ms);
  return { t, said, run, freeze, at: () => now };
}

describe('StaleTracker', () => {
  test('frames closer together than staleAfterMs: never stale, nothing counted, nothing said', () => {
    const { t, said, run } = tracker();
    for (let i = 0; i < 40; i++) {
      run(AFTER - 1);
      t.heard();
    }
    expect(t.staleMs()).toBe(0);
    expect(t.staleSpans()).toEqual([]);
    expect(said).toEqual([]);
  });

  test('silence: stale from staleAfterMs after the last frame, counted while open, closed exactly by the next frame', () => {
    const { t, said, run, at } = tracker();
    t.heard(); // at 1000
    run(AFTER);
    expect(t.isStale()).toBe(false); // exactly staleAfterMs: not yet
    run(200);
    expect(t.isStale()).toBe(true);
    expect(t.staleMs()).toBe(200);
    expect(t.staleSpans()).toEqual([[1_750, 1_950]]); // the open span, up to now
    run(1_050);
    t.heard(); // at 3000
    expect(at()).toBe(3_000);
    expect(t.isStale()).toBe(false);
    expect(t.staleMs()).toBe(1_250);
    expect(t.staleSpans()).toEqual([[1_750, 3_000]]);
    run(4_999); // silent again: a new span opens after staleAfterMs
    expect(t.staleMs()).toBe(1_250 + 4_999 - AFTER);
  });

  test('each transition is said once per span: stale by the timer (with the silence so far), fresh again by the frame (with the span)', () => {
    const { t, said, run } = tracker();
    run(2_000);
    t.heard();
    run(1_000);
    t.heard();
    expect(said.map((s) => s[0])).toEqual(['stale', 'fresh', 'stale', 'fresh']);
    const [stale, fresh] = said;
    // The timer ticks every staleAfterMs / 4: it notices within one tick of the span's start.
    expect(stale![1]).toBeGreaterThan(AFTER);
    expect(stale![1]).toBeLessThanOrEqual(AFTER + t.tickMs);
    expect(fresh).toEqual(['fresh', 2_000 - AFTER, 0]); // it was running throughout: aware of all of it
  });

  test('no session is silence too: the span runs until a frame of the next subscription (its WELCOME)', () => {
    const { t, run } = tracker();
    run(3_000); // reconnecting: nothing heard
    expect(t.staleMs()).toBe(3_000 - AFTER);
    t.heard();
    expect(t.staleSpans()).toEqual([[1_750, 4_000]]);
  });

  test('frozen: no tick, so nothing is said while frozen; the first frame after counts the frozen span and says it was unaware of it', () => {
    const { t, said, run, freeze } = tracker();
    run(100);
    t.heard(); // at 1100, the last frame before the freeze
    run(50);
    freeze(2_000);
    expect(said).toEqual([]); // whatever the clock says, a frozen process says nothing
    t.heard(); // thawed at 3150: the backlog's first frame
    expect(t.staleMs()).toBe(2_050 - AFTER);
    const [fresh] = said;
    expect(fresh![0]).toBe('fresh');
    expect(fresh![1]).toBe(2_050 - AFTER);
    // Not running from one tick after it was last seen (1150 + tick) until the frame: all of the span.
    expect(fresh![2]).toBe(2_050 - AFTER);
  });

  test('frozen, thawed, and the overdue tick runs before the first frame: stale is said at the thaw, and the span is still unaware', () => {
    const { t, said, freeze } = tracker();
    t.heard();
    freeze(3_000);
    t.tick(); // the overdue timer
    t.heard();
    expect(said).toEqual([
      ['stale', 3_000],
      ['fresh', 3_000 - AFTER, 3_000 - AFTER],
    ]);
  });

  test('a partition while running: stale is said, and none of it was unaware', () => {
    const { t, said, run } = tracker();
    t.heard();
    run(4_000);
    t.heard();
    expect(said[1]).toEqual(['fresh', 4_000 - AFTER, 0]);
  });

  test('a late tick (jitter up to one tick) is not a freeze', () => {
    const { t, said, freeze, run } = tracker();
    t.heard();
    run(AFTER);
    freeze(1.9 * t.tickMs); // one late tick
    t.tick();
    run(500);
    t.heard();
    expect(said.at(-1)![2]).toBe(0);
  });

  test(`the report keeps the last ${STALE_SPANS_KEPT} spans; staleMs counts every one`, () => {
    const { t, run } = tracker();
    for (let i = 0; i < STALE_SPANS_KEPT + 10; i++) {
      run(AFTER + 10);
      t.heard();
    }
    const spans = t.staleSpans();
    expect(spans).toHaveLength(STALE_SPANS_KEPT);
    expect(spans[0]![0]).toBe(1_000 + 10 * (AFTER + 10) + AFTER); // the 11th span: the first 10 were cut
    expect(t.staleMs()).toBe(10 * (STALE_SPANS_KEPT + 10));
  });
});
