import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { normalizeOptions } from '@state-divergence/orchestrator';
import { assembleOutcome, DOCUMENT_VERSION, toJsonConfig, toJsonRun } from '@state-divergence/orchestrator/internal';
import { answerTo } from './helpers/command-line.js';
import { copy, restartReport, restartRun, subscription } from './helpers/restart-run.js';
import { ORCHESTRATOR, startDemo, tempLogFile } from './helpers/run-demo.js';

/**
 * Bad input and a command's --help are read in-process from the CLI's own check, the code the bin
 * runs first (test/helpers/command-line.ts); the real bin prints a refusal (a --data-dir it cannot
 * write), the run's --help and analyze's report, each in a process of its own.
 */

const BAD_INPUT: Array<[string[], RegExp]> = [
  [['--consumers', '1'], /^orchestrator: --consumers must be at least 2/],
  [
    ['--stall', 'consumer-9'],
    /^orchestrator: --stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3/,
  ],
  [['--mode', 'nope'], /^orchestrator: --mode must be one of lossy, lossless, resync, durable, both, all, got nope/],
  [
    ['--mode', 'durable', '--retention', '0'],
    /^orchestrator: --retention must be a whole number of events, at least 1, got 0/,
  ],
  [
    ['--mode', 'durable', '--retention', '1.5'],
    /^orchestrator: --retention must be a whole number of events, at least 1, got 1.5/,
  ],
  [
    ['--mode', 'durable', '--fsync', 'always'],
    /^orchestrator: --fsync must be one of none, periodic, on-commit, got always/,
  ],
  [
    ['--mode', 'lossy', '--fsync', 'none'],
    /^orchestrator: --fsync only matters to a mode with a durable log; add --mode durable \(or all\)/,
  ],
  [
    ['--crash', 'broker'],
    /^orchestrator: --crash broker takes broker@FROM-TO \(seconds since publishing started\), got broker/,
  ],
  [['--crash', 'broker@0-1'], /^orchestrator: --crash broker@0-1: FROM must be after 0/],
  [
    ['--crash', 'broker@1-6', '--publish-until', '5'],
    /^orchestrator: --crash broker@1-6: TO must be before publishing ends \(--publish-until 5\)/,
  ],
  [
    ['--crash', 'broker@1-3', '--consumer-cmd', 'consumer-2=node examples/consumer-js/main.js'],
    /^orchestrator: --crash broker@1-3 cannot run with --consumer-cmd \(consumer-2\)/,
  ],
  [['--rate', '0'], /^orchestrator: --rate must be a positive number/],
  [
    ['--pool-size', '0'],
    /^orchestrator: --pool-size must be a whole number of consumers per process from 1 \(a process each\) to 1024, got 0 \(see --help\)$/,
  ],
  [
    ['--coalesce-ms', '-1'],
    /^orchestrator: --coalesce-ms must be a whole number of ms from 0 to 1000, got -1 \(see --help\)$/,
  ],
  [
    ['--coalesce-ms', '1001'],
    /^orchestrator: --coalesce-ms must be a whole number of ms from 0 to 1000, got 1001 \(see --help\)$/,
  ],
  [
    ['--nemesis', 'random', '--stall', 'consumer-1'],
    /^orchestrator: --nemesis random draws every fault itself: drop --stall \(or drop --nemesis and give the flags it printed, edited\) \(see --help\)$/,
  ],
  [
    ['--nemesis', 'chaos'],
    /^orchestrator: --nemesis must be one of random \(faults drawn from --seed\), got chaos \(see --help\)$/,
  ],
  [['--bogus'], /^orchestrator: Unknown argument: bogus/],
];

const COMMAND_HELP: Array<[string, RegExp, string[]]> = [
  ['sweep', /^orchestrator sweep --rate 100,400,1600/, ['--rate', '--keys', '--duration', '--json', '--report']],
  ['analyze', /^orchestrator analyze <log>/, ['--json', '--report']],
];
const COMMAND_USAGE: Array<[string[], RegExp]> = [
  [['sweep', '--rate', '400'], /^orchestrator sweep: sweep needs one of --rate or --keys with two or more values/],
  [['sweep', '--rate', '100,x'], /^orchestrator sweep: sweep --rate takes positive numbers/],
  [['sweep', '--rate', '100,400', '--consumers', '1'], /^orchestrator sweep: --consumers must be at least 2/],
  [['analyze'], /^orchestrator analyze: Not enough non-option arguments/],
  [['analyze', '/nonexistent/run.ndjson'], /^orchestrator analyze: cannot read \/nonexistent\/run.ndjson: ENOENT/],
];

describe('bad input', () => {
  test.each(BAD_INPUT)('%j exits 2 with one line and starts nothing', async (args, message) => {
    const logFile = tempLogFile();
    const result = await answerTo([...args, '--log-file', logFile]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const lines = String(result.stderr).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    // Every process of a run logs to this file as it starts; nothing did.
    expect(existsSync(logFile)).toBe(false);
  });

  describe('a --data-dir it cannot use', () => {
    const scratch = () => mkdtempSync(join(tmpdir(), 'cli-data-dir-'));
    const durableIn = (dataDir: string, logFile: string) => [
      '--mode',
      'durable',
      '--data-dir',
      dataDir,
      '--log-file',
      logFile,
    ];
    const expectRefused = (
      result: { exitCode?: number; stdout: unknown; stderr: unknown },
      logFile: string,
      message: RegExp,
    ) => {
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      expect(String(result.stderr).trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
      expect(existsSync(logFile)).toBe(false);
    };

    // The real bin's refusal: one line on stderr, exit 2, and no process started (none logged).
    test('not writable: one line, exit 2, nothing started, nothing written', async () => {
      const locked = scratch();
      chmodSync(locked, 0o555);
      // Root writes through permission bits: run the orchestrator as nobody then, so that they count.
      const asUser = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};
      const logFile = tempLogFile();
      const result = await execa('node', [ORCHESTRATOR, ...durableIn(locked, logFile)], {
        reject: false,
        env: { NODE_OPTIONS: '' },
        ...asUser,
      });
      expectRefused(result, logFile, new RegExp(`^orchestrator: --data-dir ${locked} is not writable \\(EACCES\\)`));
      expect(readdirSync(locked)).toEqual([]);
    });

    test("not empty (an earlier run's data): one line, exit 2, nothing started, the earlier data untouched", async () => {
      const earlier = scratch();
      mkdirSync(join(earlier, 'durable', 'broker'), { recursive: true });
      // readable (and writable) by whoever runs the orchestrator: refused for what it holds, nothing else
      chmodSync(earlier, 0o777);
      const logFile = tempLogFile();
      const result = await answerTo(durableIn(earlier, logFile));
      expectRefused(result, logFile, new RegExp(`^orchestrator: --data-dir ${earlier} is not empty \\(durable\\)`));
      expect(readdirSync(join(earlier, 'durable'))).toEqual(['broker']);
    });
  });

  // The real bin prints the help yargs hands back (cli/main.ts): the run's, in a process.
  test('--help lists every flag of a run', async () => {
    const result = await startDemo(['--help']);
    expect(result.exitCode).toBe(0);
    const flags = [
      '--rate',
      '--keys',
      '--consumers',
      '--payload',
      '--queue-capacity',
      '--duration',
      '--mode',
      '--stall',
      '--nemesis',
      '--seed',
      '--delete-ratio',
      '--rogue-frames',
      '--pool-size',
      '--join-late',
      '--tui',
      '--no-tui',
      '--json',
      '--report',
      '--log-file',
      '--log-level',
      '--fsync',
      '--retention',
      '--data-dir',
      '--keep-data',
    ];
    for (const flag of flags) expect(result.stdout).toContain(flag);
    // And the other commands, each named with what it does.
    expect(result.stdout).toMatch(/orchestrator sweep\s+Lossy at each value/);
    expect(result.stdout).toMatch(/orchestrator analyze <log>\s+Rebuild a run's report/);
  });

  test.each(COMMAND_HELP)("%s --help is its own help, not the run's", async (command, usage, flags) => {
    const result = await answerTo([command, '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(usage);
    for (const flag of flags) expect(result.stdout).toContain(flag);
    if (command === 'analyze') expect(result.stdout).not.toContain('--consumers');
  });

  test.each(COMMAND_USAGE)('%j exits 2 with one line naming its command', async (args, message) => {
    const result = await answerTo(args);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const lines = String(result.stderr).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});

/** A hand-written log: a `config` line as the orchestrator writes it, then a `result` line of an older shape. */
function oldLog(config: Record<string, unknown>): string {
  const path = tempLogFile();
  const lines = [
    { level: 30, proc: 'orchestrator', msg: 'config', ...config, config: { rate: 400, keys: 2000, mode: 'lossy' } },
    {
      level: 30,
      proc: 'orchestrator',
      mode: 'lossy',
      msg: 'result',
      run: { mode: 'lossy', valid: 'valid', consumers: [{ name: 'consumer-3', stalled: true }] },
    },
  ];
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return path;
}

const OLD_VERSIONS: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'no version (a log written before the field existed)',
    {},
    /holds a document of version 1 \(its `config` line has no version\); this orchestrator reads version \d+ only: analyze it with the orchestrator that wrote it, or run again/,
  ],
  [
    'a version from elsewhere',
    { version: 99 },
    /holds a document of version 99; this orchestrator reads version \d+ only: analyze it with the orchestrator that wrote it, or run again/,
  ],
  [
    'the version before the durable mode (3)',
    { version: 3 },
    /holds a document of version 3; this orchestrator reads version 9 only: analyze it with the orchestrator that wrote it, or run again/,
  ],
  [
    'the version before network faults (4)',
    { version: 4 },
    /holds a document of version 4; this orchestrator reads version 9 only/,
  ],
  [
    'the version before --coalesce-ms (5)',
    { version: 5 },
    /holds a document of version 5; this orchestrator reads version 9 only/,
  ],
  [
    'the version before pools (6)',
    { version: 6 },
    /holds a document of version 6; this orchestrator reads version 9 only/,
  ],
  [
    'the version before confirmed freezes (7)',
    { version: 7 },
    /holds a document of version 7; this orchestrator reads version 9 only/,
  ],
  [
    'the version before bandwidth caps (8)',
    { version: 8 },
    /holds a document of version 8; this orchestrator reads version 9 only/,
  ],
];
describe('analyze refuses a log whose document version it does not read', () => {
  test.each(OLD_VERSIONS)('%s: one line naming both versions, exit 2', async (_case, config, message) => {
    const path = oldLog(config);
    // As text and as --json.
    for (const args of [[path], [path, '--json']]) {
      const result = await answerTo(['analyze', ...args]);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      const lines = String(result.stderr).trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^orchestrator analyze: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
      expect(lines[0]).toMatch(message);
    }
  });
});

describe('analyze reads the current version', () => {
  test(`a log of version ${DOCUMENT_VERSION} (a durable run with a broker restart) gives back the same document, and its report`, async () => {
    const config = toJsonConfig(normalizeOptions({ mode: 'durable', keys: 6, consumers: 2 }, { stderrIsTTY: false }));
    const resumed = restartReport(
      copy(7, 8, 3, 15, 14, 16),
      [subscription({ at: 3_600, from: 6, outcome: 'replayed', catchUpBytes: 900 })],
      { restoredFrom: { offset: 6, epoch: 11, keys: 5 } },
    );
    const run = JSON.parse(
      JSON.stringify(
        toJsonRun(
          assembleOutcome(
            restartRun('durable', [
              ['consumer-1', resumed],
              ['consumer-2', resumed],
            ]),
          ),
        ),
      ),
    );
    const path = tempLogFile();
    const lines = [
      { level: 30, proc: 'orchestrator', msg: 'config', version: DOCUMENT_VERSION, config },
      { level: 30, proc: 'orchestrator', mode: 'durable', msg: 'result', run },
    ];
    writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const [json, text] = await Promise.all([startDemo(['analyze', path, '--json']), startDemo(['analyze', path])]);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(String(json.stdout))).toEqual({ version: DOCUMENT_VERSION, config, runs: [run] });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(
      '    broker: killed at 2.00 s, back at 2.50 s: recovered 8 records (1 torn) from its log, same epoch',
    );
  });
});
