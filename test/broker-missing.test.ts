/**
 * A verdict without its evidence is `unknown`, never a guess: without the
 * broker's report nobody knows which writes never reached whom, so a wrong key
 * can be neither explained nor called a bug. The run's verdict is unknown with
 * the reason in the report and --json, and every command that runs the demo
 * (`run`, `sweep`, `experiments`) exits 3 for it, by the one exit-code rule.
 */
import { normalizeOptions } from '@state-divergence/orchestrator';
import {
  assembleOutcome,
  check,
  completedExit,
  judge,
  NO_BROKER_REPORT,
  noBrokerEntry,
  renderClosing,
  renderMode,
  sweepPoint,
  toJsonConfig,
  toJsonRun,
} from '@state-divergence/orchestrator/internal';
import type { BrokerReport } from '@state-divergence/protocol';
import { authority, consumerReport, gathered, held, history, lastWriteOffsets } from './helpers/gathered-run.js';

const right = consumerReport(held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]));
const wrong = consumerReport(held([5, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0])); // k0 at 5, not 11
const brokerReport: BrokerReport = {
  role: 'broker',
  epoch: 1,
  recovered: null,
  durable: null,
  head: 12,
  lastWriteOffsets,
  digest: '0',
  subscribers: { right: subscriberEntry([]), wrong: subscriberEntry([[11, 11]]) },
};
/** The broker's entry for a consumer it dropped these offsets for. */
function subscriberEntry(droppedRanges: Array<[number, number]>): BrokerReport['subscribers'][string] {
  const dropped = droppedRanges.reduce((n, [a, b]) => n + b - a + 1, 0);
  return {
    queued: 0,
    delivered: 12 - dropped,
    dropped,
    lastAccepted: 12,
    bytesSent: 0,
    droppedRanges,
    maxQueued: 1,
    endedEarly: null,
    disconnectedAt: null,
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
  };
}
const config = toJsonConfig(normalizeOptions({ mode: 'lossy', keys: 6 }, { stderrIsTTY: false }));

describe('without the broker report', () => {
  test('check: the run is unknown with the reason; a wrong consumer is unknown, not invalid, and no key is called unexplained; a right one stays valid', () => {
    const result = check({
      authority,
      history,
      broker: null,
      consumers: [
        { name: 'right', faulted: false, report: right, dropped: [] },
        { name: 'wrong', faulted: true, report: wrong, dropped: [] },
      ],
    });
    expect(result.verdict).toBe('unknown');
    expect(result.error).toBe(NO_BROKER_REPORT);
    expect(result.consumers.map((c) => [c.name, c.verdict, c.wrongKeys, c.unexplainedKeys])).toEqual([
      ['right', 'valid', [], []],
      ['wrong', 'unknown', [0], []],
    ]);
  });

  test('the same consumers with the broker report: invalid, every wrong key explained', () => {
    const outcome = assembleOutcome(
      gathered(brokerReport, [
        ['right', right],
        ['wrong', wrong],
      ]),
    );
    expect(outcome.check.verdict).toBe('invalid');
    expect(outcome.check.error).toBeUndefined();
    expect(outcome.consumers[1]).toMatchObject({
      verdict: 'invalid',
      wrongKeys: [0],
      unexplainedKeys: [],
    });
    expect(judge(outcome).reasons).toEqual([]);
  });

  test('assembleOutcome: unknown with the reason in --json and the text; no BUG line, no expectation guessed; exit 3', () => {
    const outcome = assembleOutcome(
      gathered(null, [
        ['right', right],
        ['wrong', wrong],
      ]),
    );
    expect(outcome.check.verdict).toBe('unknown');
    expect(outcome.consumers.map((c) => c.expectedWrong)).toEqual([null, null]);
    const run = toJsonRun(outcome);
    expect(run).toMatchObject({ valid: 'unknown', checkerError: NO_BROKER_REPORT, unexplained: 0 });
    expect(run.consumers.map((c) => [c.verdict, c.expectedWrong, c.missedByDecile])).toEqual([
      ['valid', null, null],
      ['unknown', null, null],
    ]);
    const text = renderMode(run, config);
    expect(text).not.toMatch(/BUG/);
    expect(text).toContain(`state UNKNOWN (1 keys differ, but ${NO_BROKER_REPORT})`);
    expect(text).toContain(`checker: unknown; unexplained: unknown (${NO_BROKER_REPORT})`);
    expect(renderClosing([run], config)).toContain(`outcome UNKNOWN (${NO_BROKER_REPORT})`);
    const lines: string[] = [];
    expect(completedExit('orchestrator', [judge(outcome)], (line) => void lines.push(line))).toBe(3);
    expect(lines).toEqual([
      `orchestrator: lossy: the verdict is unknown: ${NO_BROKER_REPORT}\n`,
      'orchestrator: completed, but a consumer ended early or a verdict is unknown (see the report)\n',
    ]);
  });
});

describe('with the broker report but no entry in it for a consumer', () => {
  // A foreign consumer whose HELLO said another name, or one that never subscribed: the broker has nothing under this
  // name.
  const outcome = assembleOutcome(
    gathered(brokerReport, [
      ['right', right],
      ['foreign-1', wrong],
    ]),
  );
  const reason = noBrokerEntry('foreign-1');

  test('its wrong keys are unknown with the reason, not unexplained; no run-wide error, no expectation guessed', () => {
    expect(outcome.check.verdict).toBe('unknown');
    expect(outcome.check.error).toBeUndefined();
    const rows = outcome.consumers.map((c) => [c.name, c.verdict, c.wrongKeys, c.unexplainedKeys, c.unknownBecause]);
    expect(rows).toEqual([
      ['right', 'valid', [], [], null],
      ['foreign-1', 'unknown', [0], [], reason],
    ]);
    expect(outcome.consumers.find((c) => c.name === 'foreign-1')!.expectedWrong).toBeNull();
    const run = toJsonRun(outcome);
    expect(run).toMatchObject({ valid: 'unknown', checkerError: null, unexplained: 0 });
    expect(run.consumers[1]).toMatchObject({
      verdict: 'unknown',
      unknownBecause: reason,
      expectedWrong: null,
      missedByDecile: null,
    });
  });

  test('the report says why and has no BUG line; the exit code is 3 with the consumer named', () => {
    const run = toJsonRun(outcome);
    const text = renderMode(run, config);
    expect(text).not.toMatch(/BUG/);
    expect(text).toContain(`state UNKNOWN (1 keys differ, but ${reason})`);
    const lines: string[] = [];
    expect(completedExit('orchestrator', [judge(outcome)], (line) => void lines.push(line))).toBe(3);
    expect(lines[0]).toBe(`orchestrator: lossy: foreign-1 could not be checked (${reason})\n`);
  });
});

describe('one exit-code rule for run, sweep and experiments', () => {
  const judged = assembleOutcome(
    gathered(brokerReport, [
      ['right', right],
      ['wrong', wrong],
    ]),
  );
  const unknown = assembleOutcome(
    gathered(null, [
      ['right', right],
      ['wrong', wrong],
    ]),
  );
  const unchecked = assembleOutcome(
    gathered(brokerReport, [
      ['right', right],
      ['wrong', null],
    ]),
  );

  test('a sweep or a series of experiments whose every point was judged exits 0; one unknown or unchecked point makes it 3', () => {
    const quiet = () => {};
    expect(completedExit('orchestrator sweep', [judge(judged), judge(judged)], quiet)).toBe(0);
    expect(completedExit('orchestrator sweep', [judge(judged), judge(unknown)], quiet)).toBe(3);
    expect(completedExit('orchestrator experiments', [judge(unchecked), judge(judged)], quiet)).toBe(3);
    expect(judge(unchecked).reasons).toEqual(['lossy: wrong could not be checked (its copy could not be gathered)']);
  });

  test('when the run has an error, a consumer whose copy could not be gathered is still named; those the error explains are not repeated', () => {
    const noBroker = assembleOutcome(
      gathered(null, [
        ['right', right],
        ['wrong', wrong],
        ['gone', null],
      ]),
    );
    expect(judge(noBroker).reasons).toEqual([
      `lossy: the verdict is unknown: ${NO_BROKER_REPORT}`,
      'lossy: gone could not be checked (its copy could not be gathered)',
    ]);
    const failed = assembleOutcome(
      gathered(brokerReport, [
        ['right', right],
        ['gone', null],
      ]),
      () => {
        throw new Error('boom');
      },
    );
    expect(judge(failed).reasons).toEqual([
      'lossy: the verdict is unknown: the checker failed: boom',
      'lossy: gone could not be checked (its copy could not be gathered)',
    ]);
  });

  test('a contract failure is named, and so is the rule it broke', () => {
    const lines: string[] = [];
    const failure = 'right (foreign: node x.mjs) sent no `ready` within 10 s';
    const consumers = judged.consumers.map((c) => (c.name === 'right' ? { ...c, contract: [failure] } : c));
    const broken = { ...judged, consumers };
    expect(completedExit('orchestrator experiments', [judge(broken)], (line) => void lines.push(line))).toBe(3);
    expect(lines).toEqual([
      'orchestrator experiments: lossy: right (foreign: node x.mjs) sent no `ready` within 10 s\n',
      'orchestrator experiments: completed, but a foreign consumer broke the child contract (docs/CONSUMER.md; ' +
        'see the report)\n',
    ]);
  });

  test("a sweep point uses the run report's expectation, and says unknown rather than guess one", () => {
    const expected = (name: string) => judged.consumers.find((c) => c.name === name)!.expectedWrong!;
    // both consumers are faulted: the point averages them
    const mean = (expected('right') + expected('wrong')) / 2;
    const point = sweepPoint(judged, { rate: 400, keys: 6 });
    expect(point.expectedFraction).toBe(Math.round((mean / 6) * 1000) / 1000);
    expect(sweepPoint(unknown, { rate: 400, keys: 6 }).expectedFraction).toBeNull();
  });
});
