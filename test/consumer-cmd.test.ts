/**
 * --consumer-cmd as input: the command line split as a shell would (no shell
 * run), bad input refused before anything starts, and a foreign consumer's
 * JSON messages read into the orchestrator's types or refused with where they
 * are wrong.
 */
import { existsSync } from 'node:fs';
import { normalizeOptions } from '@state-divergence/orchestrator';
import { readForeignMessage } from '@state-divergence/protocol';
import { splitCommand } from '@state-divergence/orchestrator/internal';
import { startDemo, tempLogFile } from './helpers/run-demo.js';

const env = { stderrIsTTY: false };

describe('splitCommand splits like a shell would', () => {
  test.each([
    ['node examples/consumer-js/main.js --careful', ['node', 'examples/consumer-js/main.js', '--careful']],
    ['  python3   -u  consumer.py  ', ['python3', '-u', 'consumer.py']],
    [`./bin/c 'two words' "say \\"hi\\"" a\\ b ''`, ['./bin/c', 'two words', 'say "hi"', 'a b', '']],
    [`java -jar "my consumer.jar"x'y'`, ['java', '-jar', 'my consumer.jarxy']],
    ['node a.js \\\n --careful', ['node', 'a.js', '--careful']],
    [`echo '$HOME | not a pipe'`, ['echo', '$HOME | not a pipe']],
  ])('%j', (line, words) => {
    expect(splitCommand(line)).toEqual(words);
  });

  test.each([
    [`node 'main.js`, /the ' at character 6 is never closed/],
    [`node "main.js`, /the " at character 6 is never closed/],
    ['node main.js | tee out', /\| at character 14 is shell syntax/],
    ['node main.js > out', /> at character 14 is shell syntax/],
    ['node $HOME/main.js', /\$ at character 6 is shell syntax/],
    ['node "$HOME/main.js"', /\$ at character 7 would be expanded by a shell/],
    ['node main.js \\', /ends with a lone backslash/],
  ])('refuses %j', (line, message) => {
    expect(() => splitCommand(line)).toThrow(message);
  });
});

describe('--consumer-cmd is checked with the other flags', () => {
  test('NAME=CMD per consumer, in consumer order, the command kept as typed', () => {
    const options = normalizeOptions({ consumerCmd: ['consumer-3=node c.js --careful', 'consumer-1=./c'] }, env);
    expect(options.consumerCmd).toEqual([
      { consumer: 'consumer-1', command: './c', argv: ['./c'] },
      { consumer: 'consumer-3', command: 'node c.js --careful', argv: ['node', 'c.js', '--careful'] },
    ]);
    expect(normalizeOptions({}, env).consumerCmd).toEqual([]);
  });

  test.each([
    [
      ['consumer-9=node c.js'],
      /^--consumer-cmd consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3$/,
    ],
    [['consumer-3='], /^--consumer-cmd consumer-3= needs a command to run after the =$/],
    [['consumer-3=   '], /^--consumer-cmd consumer-3= needs a command to run after the =$/],
    [['node c.js'], /^--consumer-cmd takes NAME=CMD/],
    [
      ["consumer-3=node 'c.js"],
      /^--consumer-cmd consumer-3: cannot read the command node 'c.js: the ' at character 6 is never closed$/,
    ],
    [['consumer-3=a', 'consumer-3=b'], /^--consumer-cmd consumer-3 is given twice/],
  ])('%j is refused', (consumerCmd, message) => {
    expect(() => normalizeOptions({ consumerCmd }, env)).toThrow(message);
  });

  test('bad input is one line on stderr, exit 2, and nothing is started', async () => {
    const logFile = tempLogFile();
    const result = await startDemo(['--consumer-cmd', `consumer-3=node "unbalanced`, '--log-file', logFile]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(String(result.stderr).trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^orchestrator: --consumer-cmd consumer-3: cannot read the command .* is never closed \(see --help\)$/,
      ),
    ]);
    expect(existsSync(logFile)).toBe(false);
  });
});

describe("a foreign consumer's JSON messages", () => {
  test("are read into the orchestrator's types, with defaults for what is optional", () => {
    const versions = readForeignMessage({ type: 'reply', id: 4, kind: 'versions', value: [0, 3, 7] });
    expect(versions).toEqual({
      ok: true,
      message: { type: 'reply', id: 4, kind: 'versions', value: new Float64Array([0, 3, 7]) },
    });
    const gather = readForeignMessage({
      type: 'reply',
      id: 5,
      kind: 'gather',
      value: {
        report: {
          applied: 2,
          lastOffset: 2,
          entries: [
            [0, 1, 9],
            [4, 2, 0],
          ],
        },
      },
    });
    expect(gather.ok && gather.message).toMatchObject({
      kind: 'gather',
      value: {
        report: {
          role: 'consumer',
          applied: 2,
          lastOffset: 2,
          coveredAfter: 0,
          entries: [
            [0, 1, 9],
            [4, 2, 0],
          ],
          endedEarly: null,
          skippedRanges: [],
        },
        resources: { cpuMs: 0, maxRssKb: 0 },
      },
    });
    expect(readForeignMessage({ type: 'progress', counters: { applied: 1, lastOffset: 1 } })).toMatchObject({
      ok: true,
      message: { counters: { role: 'consumer', syncing: false } },
    });
  });

  test('may carry its subscriptions, the keys snapshots removed and the checkpoint it restarted from; none of them is owed', () => {
    const subscription = {
      at: 1.5,
      epoch: 7,
      head: 40,
      from: 12,
      outcome: 'replayed',
      catchUpBytes: 2_800,
      lastOffset: null,
      lastVersion: null,
    };
    const report = {
      applied: 2,
      lastOffset: 2,
      entries: [],
      subscriptions: [subscription],
      removedBySnapshot: [[3, 9]],
      restoredFrom: { offset: 12, epoch: 7, keys: 5 },
    };
    const read = readForeignMessage({ type: 'reply', id: 6, kind: 'gather', value: { report } });
    expect(read.ok && read.message).toMatchObject({
      value: {
        report: {
          subscriptions: [subscription],
          removedBySnapshot: [[3, 9]],
          restoredFrom: { offset: 12, epoch: 7, keys: 5 },
        },
      },
    });
    const bare = readForeignMessage({
      type: 'reply',
      id: 6,
      kind: 'gather',
      value: { report: { applied: 0, lastOffset: 0, entries: [] } },
    });
    expect(
      bare.ok &&
        bare.message.type === 'reply' &&
        bare.message.kind === 'gather' &&
        Object.keys(bare.message.value.report),
    ).not.toContain('subscriptions');
  });

  test('may carry its own stale time (live: stale, staleMs; at the end: staleMs, staleSpans); absent, it does not track it', () => {
    const progress = readForeignMessage({
      type: 'progress',
      counters: { applied: 1, lastOffset: 1, stale: true, staleMs: 812.5 },
    });
    expect(progress.ok && progress.message).toMatchObject({ counters: { stale: true, staleMs: 812.5 } });
    const report = {
      applied: 0,
      lastOffset: 0,
      entries: [],
      staleMs: 1_250,
      staleSpans: [[1_700_000_000_750, 1_700_000_002_000]],
    };
    const read = readForeignMessage({ type: 'reply', id: 8, kind: 'gather', value: { report } });
    expect(read.ok && read.message).toMatchObject({
      value: { report: { staleMs: 1_250, staleSpans: [[1_700_000_000_750, 1_700_000_002_000]] } },
    });
    const bare = readForeignMessage({ type: 'progress', counters: { applied: 1, lastOffset: 1 } });
    expect(bare.ok && bare.message.type === 'progress' && Object.keys(bare.message.counters)).not.toContain('staleMs');
  });

  test.each([
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: { report: { applied: 1, lastOffset: 1, entries: [], staleMs: -1 } },
      },
      'answered gather with a malformed report: staleMs is not a non-negative number of ms',
      true,
    ],
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: { report: { applied: 1, lastOffset: 1, entries: [], staleSpans: [[5, 4]] } },
      },
      'answered gather with a malformed report: staleSpans[0] is not [from, to] wall-clock ms with from <= to',
      true,
    ],
    [
      { type: 'reply', id: 7, kind: 'status', value: { applied: 1, lastOffset: 1, stale: 'yes' } },
      'answered status with malformed counters: stale is not true or false',
      true,
    ],
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: { report: { applied: 1, lastOffset: 1, entries: [[0, 1, 1], [1, 2, 3], 'x'] } },
      },
      'answered gather with a malformed map: entries[2] is not [key, version, value]',
      true,
    ],
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: {
          report: {
            applied: 1,
            lastOffset: 1,
            entries: [
              [0, 1, 1],
              [0, 2, 3],
            ],
          },
        },
      },
      'answered gather with a malformed map: entries[1] is not the only entry for key 0',
      true,
    ],
    [
      { type: 'reply', id: 7, kind: 'gather', value: { report: { applied: -1, lastOffset: 1, entries: [] } } },
      'answered gather with a malformed report: applied is not a non-negative integer',
      true,
    ],
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: {
          report: {
            applied: 1,
            lastOffset: 1,
            entries: [],
            subscriptions: [
              {
                at: 1,
                epoch: 1,
                head: 0,
                from: null,
                outcome: 'resumed',
                catchUpBytes: 0,
                lastOffset: null,
                lastVersion: null,
              },
            ],
          },
        },
      },
      'answered gather with a malformed report: subscriptions[0].outcome is not "latest", "snapshot", ' +
        '"replayed", "tooOld"',
      true,
    ],
    [
      {
        type: 'reply',
        id: 7,
        kind: 'gather',
        value: { report: { applied: 1, lastOffset: 1, entries: [], removedBySnapshot: [[1]] } },
      },
      'answered gather with a malformed report: removedBySnapshot[0] is not [key, version]',
      true,
    ],
    [
      { type: 'reply', id: 7, kind: 'status', value: { applied: 1 } },
      'answered status with malformed counters: lastOffset is not a non-negative integer',
      true,
    ],
    [
      { type: 'reply', id: 7, kind: 'versions', value: [1, 'two'] },
      'answered versions with a malformed version list: versions[1] is not a number',
      true,
    ],
    [
      { type: 'reply', id: 7, kind: 'digest', value: { local: 'a' } },
      'answered digest with a malformed digest verdict: match is not true, false or null',
      true,
    ],
    [{ type: 'reply', kind: 'gather', value: {} }, 'sent a reply without a valid id and kind', false],
    [{ type: 'hello' }, 'sent a message of type "hello", which a consumer never sends', false],
    [{ type: 'ready' }, 'sent a malformed ready message: pid is not a non-negative integer', false],
    [[1, 2], 'sent a message that is not a JSON object', false],
  ])('%j is refused: %s', (raw, problem, isReply) => {
    const read = readForeignMessage(raw);
    expect(read).toEqual({ ok: false, problem, ...(isReply ? { request: { id: 7, kind: expect.any(String) } } : {}) });
  });
});
