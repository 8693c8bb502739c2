/**
 * "What a consumer missed" is one function (check/missed.ts), and the live
 * view's "diverged", the checker's explanation and the expectation all use it:
 * on hand-built inputs (a drop, a drop a delta repaired, a disconnect it never
 * came back from, a late `latest` subscription, a crash) the live figure and
 * the final verdict agree key for key.
 */
import type {
  BrokerReport,
  ConsumerCounters,
  ConsumerReport,
  LastWrites,
  SubscriberReport,
} from '@state-divergence/protocol';
import {
  assembleOutcome,
  check,
  countersEvidence,
  expectedWrong,
  goneConsumer,
  liveDivergence,
  missedRanges,
  type CheckInput,
} from '@state-divergence/orchestrator/internal';
import { authority, gathered, held, history, KEYS, lastWriteOffsets } from './helpers/gathered-run.js';

/**
 * consumer `c`: the broker dropped 3, 6-7 and 9-10 for it and disconnected it at
 * 10; it asked for a delta from 5 that ended at 7 (6-7 repaired) and never
 * subscribed again. It applied 1, 2, 4, 5, 6, 7, 8 and holds
 * k0@5, k1@7, k3@4, k4@6, k5@8 (k2's writes, 3 and 9, both missed).
 * Wrong: k0, k2, k3, k4 (each last write missed); right: k1 (repaired), k5.
 */
const c = {
  dropped: [
    [3, 3],
    [6, 7],
    [9, 10],
  ] as Array<[number, number]>,
  disconnectedAt: 10,
  repairedRanges: [[6, 7]] as Array<[number, number]>,
  entries: held([5, 7, 4, 6, 8]).sort((a, b) => a[0] - b[0]),
  lastOffset: 8,
  coveredAfter: 0,
  skippedRanges: [] as Array<[number, number]>,
};
/** consumer `late`: subscribed at `latest` when the head was 8, and has applied 9-12: it never saw k1@7 and k5@8. */
const late = {
  dropped: [] as Array<[number, number]>,
  disconnectedAt: null,
  entries: held([11, 9, 10, 12]).sort((a, b) => a[0] - b[0]),
  lastOffset: 12,
  coveredAfter: 8,
  skippedRanges: [] as Array<[number, number]>,
};

const lastWrites: LastWrites = {
  head: 12,
  offsets: Float64Array.from(lastWriteOffsets),
  dropped: { c: c.dropped, late: late.dropped },
  disconnectedAt: { c: c.disconnectedAt },
};

const report = (x: typeof c | typeof late): ConsumerReport => ({
  role: 'consumer',
  applied: x.entries.length,
  lastOffset: x.lastOffset,
  coveredAfter: x.coveredAfter,
  latency: { appliedAt: new Float64Array(), latencyMs: new Float64Array() },
  lags: 0,
  resumes: 0,
  syncs: [],
  entries: x.entries,
  endedEarly: null,
  disconnects: 0,
  reconnects: 0,
  skippedRanges: x.skippedRanges,
  ...('repairedRanges' in x && { repairedRanges: x.repairedRanges }),
});
const counters = (x: typeof c | typeof late): ConsumerCounters & { name: string } => {
  const { entries: _entries, dropped: _dropped, disconnectedAt: _at, ...rest } = x;
  return {
    role: 'consumer',
    name: x === c ? 'c' : 'late',
    applied: x.entries.length,
    endedEarly: null,
    syncing: false,
    reconnects: 0,
    ...rest,
  };
};

const verdicts = (consumers: Array<['c' | 'late', typeof c | typeof late]>) =>
  check({
    authority,
    history,
    broker: { head: 12, lastWriteOffsets },
    consumers: consumers.map(([name, x]): CheckInput['consumers'][number] => ({
      name,
      faulted: true,
      report: report(x),
      dropped: x.dropped,
      disconnectedAt: x.disconnectedAt,
    })),
  });

describe('what a consumer missed: one answer, live and final', () => {
  test('dropped, skipped, before a latest subscription and after a disconnect count as missed; a repaired range does not', () => {
    expect(missedRanges({ head: 12, dropped: c.dropped, disconnectedAt: 10 }, c)).toEqual([
      [3, 3],
      [9, 12],
    ]);
    expect(
      missedRanges({ head: 12, dropped: [], disconnectedAt: null }, { coveredAfter: 8, skippedRanges: [[10, 11]] }),
    ).toEqual([
      [1, 8],
      [10, 11],
    ]);
    // A repaired range cuts into a `latest` subscription's blind spot too: the delta gave those keys back.
    expect(
      missedRanges(
        { head: 12, dropped: [], disconnectedAt: null },
        { coveredAfter: 8, skippedRanges: [], repairedRanges: [[4, 6]] },
      ),
    ).toEqual([
      [1, 3],
      [7, 8],
    ]);
    // A subscription that ended for good (a partition outlasting the client's retries): nothing after its last applied
    // offset reached it.
    expect(
      missedRanges(
        { head: 12, dropped: [[3, 3]], disconnectedAt: null },
        { coveredAfter: 0, skippedRanges: [], endedEarly: 'no broker answered within 3 s', lastOffset: 7 },
      ),
    ).toEqual([
      [3, 3],
      [8, 12],
    ]);
    expect(
      missedRanges(
        { head: 12, dropped: [], disconnectedAt: null },
        { coveredAfter: 0, skippedRanges: [], endedEarly: null, lastOffset: 7 },
      ),
    ).toEqual([]);
  });

  test('with a repaired range and a disconnect, the live diverged count is the number of wrong keys the checker explains', () => {
    const live = liveDivergence(lastWrites, counters(c));
    const final = verdicts([['c', c]]).consumers[0]!;
    expect(final.wrongKeys).toEqual([0, 2, 3, 4]);
    expect(final.unexplainedKeys).toEqual([]);
    expect(final.verdict).toBe('invalid');
    expect(live).toEqual({ diverged: final.wrongKeys.length, behind: 0 });
  });

  test('a late latest subscriber: diverged live is what it ends wrong about', () => {
    const live = liveDivergence(lastWrites, counters(late));
    const final = verdicts([['late', late]]).consumers[0]!;
    expect(final.wrongKeys).toEqual([1, 5]);
    expect(final.unexplainedKeys).toEqual([]);
    expect(live).toEqual({ diverged: 2, behind: 0 });
  });

  test('a consumer that has not applied everything yet: what it will get is behind, what it missed is diverged, never both', () => {
    // it has not applied 6-8 yet (k1@7 arrives by its delta, k5@8 by the stream)
    const early = { ...counters(c), lastOffset: 5 };
    expect(liveDivergence(lastWrites, early)).toEqual({ diverged: 4, behind: 2 });
  });

  test('a crashed consumer: everything behind when its successor subscribes with a snapshot, diverged when at latest', () => {
    expect(liveDivergence(lastWrites, { name: 'gone', ...goneConsumer('snapshot', 12) })).toEqual({
      diverged: 0,
      behind: 6,
    });
    expect(liveDivergence(lastWrites, { name: 'gone', ...goneConsumer('latest', 12) })).toEqual({
      diverged: 6,
      behind: 0,
    });
  });

  test('a consumer whose subscription ended for good: diverged live, from its counters as the live view reads them, and wrong in its verdict', () => {
    // It applied 1-7 and gave up reconnecting (a partition that outlasted its retries): k0@5, k1@7, k2@3, k3@4, k4@6.
    const applied = [1, 2, 3, 4, 5, 6, 7];
    const gaveUp = 'the subscription failed, and no broker answered within 3 s';
    const live = liveDivergence(lastWrites, {
      name: 'gone',
      ...countersEvidence({
        role: 'consumer',
        applied: 7,
        lastOffset: 7,
        endedEarly: gaveUp,
        syncing: false,
        reconnects: 0,
        skippedRanges: [],
        coveredAfter: 0,
      }),
    });
    const final = check({
      authority,
      history,
      broker: { head: 12, lastWriteOffsets },
      consumers: [
        {
          name: 'gone',
          faulted: true,
          report: {
            ...report(late),
            entries: held(applied),
            applied: 7,
            lastOffset: 7,
            coveredAfter: 0,
            endedEarly: gaveUp,
          },
          dropped: [],
          disconnectedAt: null,
        },
      ],
    }).consumers[0]!;
    expect(final.wrongKeys).toEqual([0, 2, 3, 4, 5]); // every key whose last write came after 7; k1@7 is right
    expect(final.unexplainedKeys).toEqual([]);
    expect(live).toEqual({ diverged: final.wrongKeys.length, behind: 0 });
  });

  test("the run report's expectation is computed over the same ranges", () => {
    const subscriber = (x: typeof c | typeof late): SubscriberReport => ({
      queued: 0,
      delivered: 0,
      dropped: 0,
      lastAccepted: 0,
      bytesSent: 0,
      droppedRanges: x.dropped,
      maxQueued: 0,
      endedEarly: null,
      disconnectedAt: x.disconnectedAt,
      disconnects: 0,
      lags: 0,
      blockedWrites: [],
      marks: [],
      marksDropped: 0,
      resumes: 0,
      resyncBytes: 0,
      resyncFrames: 0,
      fullSnapshotBytes: 0,
      discarded: 0,
      replayedEvents: 0,
      replayBytes: 0,
      backfills: 0,
      transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
    });
    const broker: BrokerReport = {
      role: 'broker',
      epoch: 1,
      recovered: null,
      durable: null,
      head: 12,
      subscribers: { c: subscriber(c), late: subscriber(late) },
      lastWriteOffsets,
      digest: '0',
    };
    const outcome = assembleOutcome(
      gathered(broker, [
        ['c', report(c)],
        ['late', report(late)],
      ]),
    );
    expect(outcome.check.verdict).toBe('invalid');
    expect(outcome.consumers.map((x) => x.unexplainedKeys)).toEqual([[], []]);
    expect(outcome.consumers.map((x) => [x.name, x.expectedWrong])).toEqual([
      [
        'c',
        expectedWrong(6, 12, [
          [3, 3],
          [9, 12],
        ]),
      ],
      ['late', expectedWrong(6, 12, [[1, 8]])],
    ]);
  });
});
