/** The clients' reconnection schedule: 100 ms doubling to 1 s, then 1 s until a broker answers or they stop. */
import { jest } from '@jest/globals';
import { backoffDelays, retryWithBackoff } from '@state-divergence/runtime';

test('the delays: 100, 200, 400, 800, then 1000 ms for ever', () => {
  const delays = backoffDelays();
  expect(Array.from({ length: 8 }, () => delays.next().value)).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
});

describe('retryWithBackoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Runs the loop on fake timers, recording when (in fake ms) each attempt was made. */
  async function drive<T>(attempt: (n: number) => Promise<T>, options: { stopAfter?: number; giveUpAfterMs?: number | null }) {
    const at: number[] = [];
    const start = Date.now();
    let count = 0;
    const result = retryWithBackoff(
      () => {
        count += 1;
        at.push(Date.now() - start);
        return attempt(count);
      },
      { stop: () => options.stopAfter !== undefined && count >= options.stopAfter, giveUpAt: options.giveUpAfterMs == null ? null : performance.now() + options.giveUpAfterMs, onFailure: () => {} },
    );
    const settled = result.then((value) => ({ value }), (error: unknown) => ({ error }));
    for (let i = 0; i < 100; i++) await jest.advanceTimersByTimeAsync(100);
    return { at, outcome: await settled };
  }

  test('waits before each attempt and resolves with the first success', async () => {
    const { at, outcome } = await drive(async (n) => {
      if (n < 6) throw new Error('refused');
      return 'connected';
    }, {});
    expect(outcome).toEqual({ value: 'connected' });
    expect(at).toEqual([100, 300, 700, 1500, 2500, 3500]);
  });

  test('stops with undefined when told to, without another attempt', async () => {
    const { at, outcome } = await drive(async () => {
      throw new Error('down');
    }, { stopAfter: 3 });
    expect(outcome).toEqual({ value: undefined });
    expect(at).toHaveLength(3);
  });

  test('after giveUpAt a failure is final: it rejects with it', async () => {
    const { at, outcome } = await drive(async (n) => {
      throw new Error(`down ${n}`);
    }, { giveUpAfterMs: 1_000 });
    expect(outcome).toEqual({ error: new Error('down 4') });
    expect(at).toEqual([100, 300, 700, 1500]);
  });
});
