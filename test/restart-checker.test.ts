/**
 * The checker after a broker restart, on hand-built runs (helpers/restart-run.ts):
 * each of the four explanations covers the wrong keys its evidence covers, and a
 * wrong key outside every explanation's evidence stays unexplained (a bug), as
 * does a consumer whose evidence is missing. The expectation beside it: what the
 * key probabilities predict from what each consumer missed, or no prediction.
 */
import { assembleOutcome, expectedWrong, toJsonRun } from '@state-divergence/orchestrator/internal';
import { consumerReport } from './helpers/gathered-run.js';
import { copy, DISCARDED, EPOCHS, OUTAGE, restartReport, restartRun, subscription } from './helpers/restart-run.js';

// Every consumer subscribed to the first broker before it died, and again to the second (a new epoch) at 3.6 s.
const after = (fields: Parameters<typeof subscription>[0] = {}) =>
  subscription({ at: 3_600, epoch: EPOCHS.second, ...fields });
const firstUpTo = (lastVersion: number, fields: Parameters<typeof subscription>[0] = {}) =>
  subscription({ lastOffset: lastVersion, lastVersion, ...fields });

const reports = {
  // Kept its copy (latest): versions 7 and 8 were accepted by the first broker, which died before delivering them.
  kept: restartReport(copy(1, 2, 3, 15, 14, 16), [firstUpTo(6), after({ head: 2 })], { coveredAfter: 2 }),
  // Relisted (snapshot): the second broker's snapshot held only k3 and k4, so k0-k2 were removed.
  relisted: restartReport(
    copy(15, 14, 16),
    [firstUpTo(8, { outcome: 'snapshot' }), after({ outcome: 'snapshot', head: 2, catchUpBytes: 300 })],
    {
      removedBySnapshot: [
        [0, 7],
        [1, 8],
        [2, 3],
      ],
    },
  ),
  // Received version 9, which the first broker fanned out and died before acknowledging.
  doubtful: restartReport(copy(7, 8, 9, 15, 14, 16), [firstUpTo(9), after({ head: 2 })], { coveredAfter: 2 }),
  // Subscribed again at the second broker's head 5: k4's last write (offset 5) never reached it.
  missedFinal: restartReport(copy(7, 8, 3, 15, 5, 16), [firstUpTo(8), after({ head: 5 })], { coveredAfter: 5 }),
};
const controls = {
  // Wrong about k0 although its first subscription delivered up to version 8 (k0's v7 included): nothing explains it.
  deliveredYetWrong: restartReport(copy(1, 8, 3, 15, 14, 16), [firstUpTo(8), after({ head: 2 })], { coveredAfter: 2 }),
  // A snapshot removed k3, but the final broker holds k3 (offset 6) and the stream after the snapshot would have
  // brought it.
  removedButHeld: restartReport(
    copy(7, 8, 3, 14, 16),
    [firstUpTo(8, { outcome: 'snapshot' }), after({ outcome: 'snapshot', head: 2 })],
    { removedBySnapshot: [[3, 4]] },
  ),
  // Lacks k2, which only the dead broker wrote (v3, delivered to it), and no snapshot removed: it just vanished.
  vanished: restartReport(copy(7, 8, 15, 14, 16), [firstUpTo(8), after({ head: 2 })], { coveredAfter: 2 }),
  // Holds k4 at 11: neither discarded nor missed (offset 5 reached it), just stale.
  stale: restartReport(copy(7, 8, 3, 15, 11, 16), [firstUpTo(8), after({ head: 2 })], { coveredAfter: 2 }),
  // Holds version 9 of k2 with a value the publisher never drew: not the discarded change.
  forged: restartReport(
    [...copy(7, 8, 15, 14, 16), [2, DISCARDED, 999] as [number, number, number]].sort((a, b) => a[0] - b[0]),
    [firstUpTo(9), after({ head: 2 })],
    { coveredAfter: 2 },
  ),
  // Reports no subscriptions (a foreign consumer may not): what the dead broker delivered to it is unknown.
  noSubscriptions: consumerReport(copy(1, 2, 3, 15, 14, 16), { coveredAfter: 2 }),
};

const outcome = assembleOutcome(restartRun('lossy', [...Object.entries(reports), ...Object.entries(controls)]));
const byName = (name: string) => outcome.consumers.find((c) => c.name === name)!;
const none = { missed: 0, forgotten: 0, lostWithBroker: 0, inDoubt: 0 };

describe('after a restart of a broker without a log, each explanation covers what its evidence covers', () => {
  test.each([
    ['kept', [0, 1], { lostWithBroker: 2 }],
    ['relisted', [0, 1, 2], { forgotten: 3 }],
    ['doubtful', [2], { inDoubt: 1 }],
    ['missedFinal', [4], { missed: 1 }],
  ])('%s: wrong about %j, each explained, none unexplained', (name, wrong, explained) => {
    const c = byName(name);
    expect(c).toMatchObject({ verdict: 'invalid', wrongKeys: wrong, unexplainedKeys: [], unexpected: 0 });
    expect(c.explained).toEqual({ ...none, ...explained });
  });

  test.each([
    ['deliveredYetWrong', [0], 'delivered up to version 8, so k0 v7 is not lost with the broker'],
    ['removedButHeld', [3], 'the final broker holds k3, so a snapshot removing it is no excuse'],
    ['vanished', [2], 'no snapshot removed k2 and its v3 was delivered'],
    ['stale', [4], 'k4 v11 is neither discarded nor missed'],
    ['forged', [2], 'version 9 of k2 with a value never drawn is not the discarded change'],
    ['noSubscriptions', [0, 1], 'without its subscriptions, what the dead broker delivered to it is unknown'],
  ])('%s: wrong about %j and unexplained (%s)', (name, wrong) => {
    const c = byName(name);
    expect(c.wrongKeys).toEqual(wrong);
    expect(c.unexplainedKeys).toEqual(wrong);
    expect(c.explained).toEqual(none);
  });

  test('a discarded delete the dead broker delivered leaves a tombstone: the key is missing from the copy, in doubt; a discarded write is no excuse for a missing key', () => {
    const tombstoned = restartReport(copy(7, 8, 15, 14, 16), [firstUpTo(9), after({ head: 2 })], { coveredAfter: 2 });
    const run = restartRun('lossy', [['tombstoned', tombstoned]]);
    const history = run.publisher!.history;
    const asDelete = {
      ...history,
      deleted: Uint8Array.from(history.deleted),
      values: Uint32Array.from(history.values),
    };
    asDelete.deleted[DISCARDED - 1] = 1; // version 9 (k2) was a delete
    asDelete.values[DISCARDED - 1] = 0;
    const judged = (h: typeof history) =>
      assembleOutcome({ ...run, publisher: { ...run.publisher!, history: h } }).consumers[0]!;
    expect(judged(asDelete)).toMatchObject({ wrongKeys: [2], unexplainedKeys: [], explained: { ...none, inDoubt: 1 } });
    expect(judged(history)).toMatchObject({ wrongKeys: [2], unexplainedKeys: [2], explained: none });
  });

  test('the document sums the unexplained keys and carries each explanation', () => {
    const run = toJsonRun(outcome);
    expect(run.unexplained).toBe(1 + 1 + 1 + 1 + 1 + 2);
    expect(run.consumers.find((c) => c.name === 'relisted')).toMatchObject({
      explained: { ...none, forgotten: 3 },
      removedBySnapshot: 3,
    });
  });
});

describe('the expectation after a restart', () => {
  // 15 changes were made (16 drawn, 9 discarded); the first broker accepted changes 1-8, the second 9-15 (its offsets
  // 1-7).
  const expected = Object.fromEntries(outcome.consumers.map((c) => [c.name, c.expectedWrong]));

  test('a copy a snapshot replaced ends wrong about every key only the dead broker wrote: changes 1-8 missed', () => {
    expect(expected.relisted).toBe(expectedWrong(6, 15, [[1, 8]]));
  });

  test('a copy kept across it misses what the dead broker never delivered (versions 7-8) and what it skipped at the new head (offsets 1-2)', () => {
    expect(expected.kept).toBe(
      expectedWrong(6, 15, [
        [7, 8],
        [9, 10],
      ]),
    );
    expect(expected.missedFinal).toBe(expectedWrong(6, 15, [[9, 13]]));
    expect(byName('kept').missedByDecile).not.toBeNull();
  });

  test('without its subscriptions nothing is predicted for a consumer; after two restarts nothing for anyone, and the run says why', () => {
    expect(expected.noSubscriptions).toBeNull();
    expect(outcome.damage.noPrediction).toBeNull();
    const twice = restartRun('lossy', [['kept', reports.kept]]);
    twice.brokerOutages = [{ from: 2_000, to: 2_200 }, OUTAGE];
    const result = assembleOutcome(twice);
    expect(result.consumers.map((c) => c.expectedWrong)).toEqual([null]);
    expect(result.damage.noPrediction).toMatch(/^no prediction: the broker lost its memory 2 times/);
    expect(toJsonRun(result).noPrediction).toBe(result.damage.noPrediction);
  });
});

describe('a durable broker restart', () => {
  // The log kept versions 1-8, so the second broker holds every key: the final broker's offsets are the only evidence.
  const resumed = (entries: ReturnType<typeof copy>) =>
    restartReport(entries, [
      firstUpTo(6, { outcome: 'snapshot' }),
      subscription({ at: 3_600, from: 6, outcome: 'replayed', catchUpBytes: 900 }),
    ]);

  test('a consumer that resumed from its offset ends correct; one wrong without a missed offset is unexplained, with no dead-broker excuse', () => {
    const result = assembleOutcome(
      restartRun('durable', [
        ['right', resumed(copy(7, 8, 3, 15, 14, 16))],
        ['wrong', resumed(copy(1, 8, 3, 15, 14, 16))],
      ]),
    );
    const rows = result.consumers.map((c) => [c.name, c.verdict, c.wrongKeys, c.unexplainedKeys]);
    expect(rows).toEqual([
      ['right', 'valid', [], []],
      ['wrong', 'invalid', [0], [0]],
    ]);
    const expectations = result.consumers.map((c) => [c.name, c.expectedWrong]);
    expect(expectations).toEqual([
      ['right', 0],
      ['wrong', 0],
    ]);
  });
});
