/**
 * The clients' reconnection schedule: 100 ms doubling to 1 s, then 1 s until a broker answers or they
 * stop; after an unannounced loss, until the give-up window (3 s, or the QUIC idle timeout if longer).
 */
import { jest } from '@jest/globals';
import {
  backoffDelays,
  createLogger,
  reachBrokerAgain,
  retryWithBackoff,
  unannouncedGiveUpMs,
  UNANNOUNCED_GIVE_UP_MS,
} from '@state-divergence/runtime';

const logger = createLogger('test', { level: 'silent', file: null, mode: null });

test('the delays: 100, 200, 400, 800, then 1000 ms for ever', () => {
  const delays = backoffDelays();
  expect(Array.from({ length: 8 }, () => delays.next().value)).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
});

describe('retryWithBackoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Runs the loop on fake timers, recording when (in fake ms) each attempt was made. */
  async function drive<T>(
    attempt: (n: number) => Promise<T>,
    options: { stopAfter?: number; giveUpAfterMs?: number | null },
  ) {
    const at: number[] = [];
    const start = Date.now();
    let count = 0;
    const result = retryWithBackoff(
      () => {
        count += 1;
        at.push(Date.now() - start);
        return attempt(count);
      },
      {
        stop: () => options.stopAfter !== undefined && count >= options.stopAfter,
        giveUpAt: options.giveUpAfterMs == null ? null : performance.now() + options.giveUpAfterMs,
        onFailure: () => {},
      },
    );
    const settled = result.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
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
    const { at, outcome } = await drive(
      async () => {
        throw new Error('down');
      },
      { stopAfter: 3 },
    );
    expect(outcome).toEqual({ value: undefined });
    expect(at).toHaveLength(3);
  });

  test('after giveUpAt a failure is final: it rejects with it', async () => {
    const { at, outcome } = await drive(
      async (n) => {
        throw new Error(`down ${n}`);
      },
      { giveUpAfterMs: 1_000 },
    );
    expect(outcome).toEqual({ error: new Error('down 4') });
    expect(at).toEqual([100, 300, 700, 1500]);
  });
});

describe('the unannounced give-up window', () => {
  test('3 s, or the idle timeout when that is longer: a partition that outlives the connection may last as long again', () => {
    expect(UNANNOUNCED_GIVE_UP_MS).toBe(3_000);
    expect(unannouncedGiveUpMs(1_000)).toBe(3_000);
    expect(unannouncedGiveUpMs(3_000)).toBe(3_000);
    expect(unannouncedGiveUpMs(12_000)).toBe(12_000);
  });

  describe('reachBrokerAgain', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    /** An unannounced loss with no broker answering: when (fake ms) it gave up, and what it said. */
    async function giveUp(idleTimeoutMs: number) {
      const start = Date.now();
      let gaveUp: { at: number; message: string } | undefined;
      let attempts = 0;
      reachBrokerAgain({
        attempt: async () => {
          attempts += 1;
          throw new Error('no handshake');
        },
        announced: false,
        reason: 'stream failed',
        idleTimeoutMs,
        stale: () => false,
        logger,
        reached: () => {},
        gaveUp: (message) => (gaveUp = { at: Date.now() - start, message }),
      });
      for (let i = 0; i < 300 && gaveUp === undefined; i++) await jest.advanceTimersByTimeAsync(100);
      return { ...gaveUp!, attempts };
    }

    test('a short idle timeout: gives up after the first failure past 3 s', async () => {
      const { at, message } = await giveUp(2_000);
      expect(at).toBeGreaterThanOrEqual(3_000);
      expect(at).toBeLessThan(3_000 + 1_000 + 100); // the next attempt after the window (backoff tops at 1 s)
      expect(message).toBe('stream failed, and no broker answered within 3 s: no handshake');
    });

    test('a long idle timeout: keeps trying that long', async () => {
      const { at, message, attempts } = await giveUp(8_000);
      expect(at).toBeGreaterThanOrEqual(8_000);
      expect(at).toBeLessThan(8_000 + 1_000 + 100);
      expect(attempts).toBeGreaterThan(8);
      expect(message).toBe('stream failed, and no broker answered within 8 s: no handshake');
    });
  });
});
