import { normalizeOptions } from '../packages/orchestrator/src/cli/normalize-options.js';
import { UsageError } from '../packages/orchestrator/src/model/errors.js';

const tty = { stderrIsTTY: false };
const usage = (raw: Parameters<typeof normalizeOptions>[0]) => {
  try {
    normalizeOptions(raw, tty);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

describe('options', () => {
  test('defaults are the seed\'s: 400/s, 2000 keys, 3 consumers, the last one stalled, both modes', () => {
    expect(normalizeOptions({}, tty)).toMatchObject({
      rate: 400, keys: 2000, consumers: 3, payload: 64, queueCapacity: 512, duration: 4,
      mode: 'all', modes: ['lossy', 'lossless', 'resync'], stall: ['consumer-3'], seed: 1, deleteRatio: 0.02, joinLate: null, logLevel: 'info',
    });
  });

  test('both is the seed\'s two columns; all adds resync', () => {
    expect(normalizeOptions({ mode: 'both' }, tty).modes).toEqual(['lossy', 'lossless']);
    expect(normalizeOptions({ mode: 'resync' }, tty).modes).toEqual(['resync']);
  });

  test('--stall takes repeats and comma lists, in consumer order, without duplicates', () => {
    expect(normalizeOptions({ consumers: 5, stall: ['consumer-4,consumer-2', 'consumer-4'] }, tty).stall).toEqual(['consumer-2', 'consumer-4']);
  });

  test('bad values name the flag, what is allowed and what was given', () => {
    expect(usage({ consumers: 1 })).toBe('--consumers must be at least 2 (and at most 64), got 1');
    expect(usage({ stall: ['consumer-9'] })).toBe('--stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3');
    expect(usage({ mode: 'nope' })).toBe('--mode must be one of lossy, lossless, resync, both, all, got nope');
    expect(usage({ joinLate: 'consumer-3' })).toMatch(/^--join-late consumer-3 is also stalled/);
    expect(usage({ deleteRatio: 2 })).toBe('--delete-ratio must be a fraction from 0 to 1, got 2');
    expect(usage({ rate: 0 })).toMatch(/^--rate must be a positive number/);
    expect(usage({ rate: Number.NaN })).toMatch(/got not a number$/);
    expect(usage({ payload: 70_000 })).toMatch(/^--payload must be an integer from 0 to 65536/);
    expect(usage({ stall: ['consumer-1,consumer-2,consumer-3'] })).toMatch(/leave at least one/);
  });

  test('logs default to warnings only when they would land on a terminal', () => {
    expect(normalizeOptions({}, { stderrIsTTY: true }).logLevel).toBe('warn');
    expect(normalizeOptions({ logFile: '/tmp/x.ndjson' }, { stderrIsTTY: true }).logLevel).toBe('info');
    expect(normalizeOptions({ logLevel: 'debug' }, { stderrIsTTY: true }).logLevel).toBe('debug');
  });
});
