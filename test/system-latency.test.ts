/**
 * The healthy consumers' publish-to-apply latency of a run against a real system
 * (systems-run/healthy-latency.ts): from the publisher's issue of each write to a healthy
 * consumer's apply of it, over the first stall's window; the faulted consumers left out.
 */
import { healthyLatency } from '@state-divergence/orchestrator/systems-internal';
import type { ProbeReport } from '@state-divergence/systems';

const startedAt = 1_000_000;
const write = (seq: number, issuedMs: number) =>
  [seq, { key: `k${seq}`, value: 'v', seq, atMs: issuedMs + 1, issuedMs }] as const;
const bySeq = new Map([write(1, 100), write(2, 2_100), write(3, 2_500), write(4, 5_000)]);
const report = (applied: Array<[number, number]>): ProbeReport => ({
  entries: [],
  applied: applied.length,
  highestSeq: Math.max(0, ...applied.map(([seq]) => seq)),
  appliedSeqs: applied.map(([seq]) => seq),
  appliedAtMs: applied.map(([, at]) => startedAt + at),
  relists: 0,
  signals: [],
});
const stall = { kind: 'stall' as const, consumer: 'consumer-3', from: 2, to: 4 };

test('counted over the stall, from issue to apply, for the consumers no fault touched', () => {
  const reports = new Map([
    // applied 2 after 10 ms and 3 after 30 ms inside the stall; 1 and 4 outside it
    [
      'consumer-1',
      report([
        [1, 105],
        [2, 2_110],
        [3, 2_530],
        [4, 5_002],
      ]),
    ],
    ['consumer-2', report([[2, 2_120]])],
    // the stalled one applies late: it must not count
    [
      'consumer-3',
      report([
        [2, 4_100],
        [3, 4_100],
      ]),
    ],
  ]);
  const latency = healthyLatency(reports, [stall], bySeq, startedAt);
  expect(latency).toEqual({ count: 3, p50: 20, p99: 29.8, p999: 29.98, max: 30 }); // interpolated;
});

test('over the whole run without a stall; a seq no acknowledged write has is left out; null when none', () => {
  const crash = { kind: 'crash' as const, consumer: 'consumer-2', from: 1, to: 2 };
  const reports = new Map([
    [
      'consumer-1',
      report([
        [1, 110],
        [4, 5_040],
        [9, 5_100],
      ]),
    ],
    ['consumer-2', report([[1, 9_000]])],
  ]);
  expect(healthyLatency(reports, [crash], bySeq, startedAt)).toEqual({
    count: 2,
    p50: 25,
    p99: 39.7,
    p999: 39.97,
    max: 40,
  });
  expect(healthyLatency(new Map([['consumer-3', report([[2, 4_100]])]]), [stall], bySeq, startedAt)).toBeNull();
});
