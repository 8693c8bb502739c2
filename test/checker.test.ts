import type { ConsumerReport } from '@state-divergence/protocol';
import { check, mergeVerdicts } from '../packages/orchestrator/src/checker.js';

const report = (entries: Array<[number, number, number]>, endedEarly: string | null = null): ConsumerReport => ({
  role: 'consumer',
  applied: entries.length,
  lastOffset: entries.length,
  latency: { appliedAt: new Float64Array(), latencyMs: new Float64Array() },
  entries,
  endedEarly,
});

// Keys 0..4: key 3 never written by the publisher.
const authority = { versions: [5, 9, 2, 0, 7], values: [50, 90, 20, 0, 70] };

describe('checker', () => {
  test('a consumer holding exactly the authority is valid', () => {
    const result = check({ authority, consumers: [{ name: 'c1', stalled: false, report: report([[0, 5, 50], [1, 9, 90], [2, 2, 20], [4, 7, 70]]) }] });
    expect(result.verdict).toBe('valid');
    expect(result.consumers[0]).toMatchObject({ verdict: 'valid', wrongKeys: [], stale: 0, missing: 0, unexpected: 0 });
  });

  test('stale and missing keys are wrong; a key the authority never wrote is not', () => {
    const result = check({ authority, consumers: [{ name: 'c3', stalled: true, report: report([[0, 5, 50], [1, 4, 40]]) }] });
    expect(result.verdict).toBe('invalid');
    expect(result.consumers[0]).toMatchObject({ verdict: 'invalid', wrongKeys: [1, 2, 4], stale: 1, missing: 2, unexpected: 0 });
  });

  test('a value the publisher never emitted, or a key it never wrote, is unexpected', () => {
    const result = check({ authority, consumers: [{ name: 'c2', stalled: false, report: report([[0, 5, 51], [1, 9, 90], [2, 2, 20], [3, 1, 1], [4, 7, 70]]) }] });
    expect(result.consumers[0]).toMatchObject({ wrongKeys: [0, 3], unexpected: 2 });
  });

  test('a consumer whose copy could not be gathered is unknown, never valid', () => {
    const result = check({ authority, consumers: [
      { name: 'c1', stalled: false, report: report([[0, 5, 50], [1, 9, 90], [2, 2, 20], [4, 7, 70]]) },
      { name: 'c2', stalled: false, report: null },
    ] });
    expect(result.consumers[1]!.verdict).toBe('unknown');
    expect(result.verdict).toBe('unknown');
  });

  test('verdicts merge with false beating unknown beating true', () => {
    expect(mergeVerdicts(['valid', 'unknown', 'invalid'])).toBe('invalid');
    expect(mergeVerdicts(['valid', 'unknown'])).toBe('unknown');
    expect(mergeVerdicts(['valid', 'valid'])).toBe('valid');
  });

  test('ended-early consumers carry the reason through', () => {
    const result = check({ authority, consumers: [{ name: 'c1', stalled: false, report: report([], 'stream failed: idle timeout') }] });
    expect(result.consumers[0]).toMatchObject({ endedEarly: 'stream failed: idle timeout', missing: 4 });
  });
});
