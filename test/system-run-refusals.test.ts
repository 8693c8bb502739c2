/**
 * `orchestrator --system NAME` refusals: each one line on stderr, exit 2, nothing on stdout and
 * nothing started (the check runs before any server or probe: systems-run/system-options.ts). Each
 * is read in-process from the CLI's own check (test/helpers/command-line.ts); the last, a server not
 * on PATH, from the real bin, which prints that one line and exits 2.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseSystemRun } from '@state-divergence/orchestrator/systems-internal';
import { installed, systemNamed } from '@state-divergence/systems';
import { answerTo } from './helpers/command-line.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

const refused = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [ORCHESTRATOR, ...args], { reject: false, env: { NODE_OPTIONS: '', ...env } });

const REFUSALS: Array<[string[], RegExp]> = [
  [
    ['--system', 'mongodb'],
    /^orchestrator: --system must be one of quic, all, etcd, nats, nats-kv, redis-pubsub, redis-streams, got mongodb/,
  ],
  [
    ['--system', 'redis-streams', '--mode', 'lossy'],
    /^orchestrator: --mode is our broker's \(--system quic\); not with/,
  ],
  // --partition, --delay and --reset run on a real system now, through a TCP relay (network-faults.ts); loss has no
  // meaning on TCP.
  [
    ['--system', 'nats', '--loss', 'consumer-1@1-2:10'],
    /^orchestrator: --loss has no meaning on TCP \(--system nats\)/,
  ],
  [['--system', 'redis-pubsub', '--reset', 'publisher@2'], /^orchestrator: --reset publisher is not taken/],
  [['--system', 'etcd', '--reset', 'consumer-1'], /^orchestrator: --reset takes NAME@T/],
  [['--reset', 'consumer-1@2'], /^orchestrator: --reset is for --system NAME/],
  [
    ['--system', 'etcd', '--partition', 'consumer-1@1-3', '--stall', 'consumer-1@2-4'],
    /^orchestrator: --partition consumer-1@1-3 overlaps --stall consumer-1@2-4: one fault at a time per consumer/,
  ],
  // --slow and --crash run on a real system now (system-faults.ts): refused only as our broker's are.
  [['--system', 'etcd', '--crash', 'broker@0-2'], /^orchestrator: --crash broker@0-2: FROM must be after 0/],
  [['--system', 'etcd', '--slow', 'broker@1-2'], /^orchestrator: --slow broker@1-2: only --crash can fault the broker/],
  [['--system', 'etcd', '--crash', 'broker'], /^orchestrator: --crash broker takes broker@FROM-TO/],
  [
    ['--system', 'nats', '--crash', 'broker@1-3', '--publish-until', '2'],
    /^orchestrator: --crash broker@1-3: TO must be before publishing ends \(--publish-until 2\)/,
  ],
  [
    ['--system', 'nats', '--crash', 'broker@1-3', '--crash', 'consumer-1@0.5-2'],
    /^orchestrator: --crash consumer-1@0.5-2 restarts consumer-1 at 2 s, while the broker is down/,
  ],
  [
    ['--system', 'redis-pubsub', '--slow', 'consumer-1@1-3', '--stall', 'consumer-1@2-4'],
    /^orchestrator: --slow consumer-1@1-3:50 overlaps --stall consumer-1@2-4: one fault at a time per consumer/,
  ],
  [
    ['--system', 'redis-pubsub', '--crash', 'consumer-1,consumer-2', '--stall', 'consumer-3'],
    /^orchestrator: at 4 s every consumer is faulted \(consumer-3, consumer-1, consumer-2\)/,
  ],
  [
    ['--system', 'etcd', '--slow', 'consumer-1@1-2:100'],
    /^orchestrator: --slow consumer-1@1-2:100: PCT must be from 1 to 99/,
  ],
  [
    ['--system', 'etcd', '--crash', 'consumer-9@1-2'],
    /^orchestrator: --crash consumer-9 is not a consumer of this run/,
  ],
  [['--idiom', 'careful'], /^orchestrator: --idiom is for --system NAME/],
  [['--system', 'quic', '--idiom', 'naive'], /^orchestrator: --idiom is for --system NAME/],
  [['--system', 'nats', '--idiom', 'sloppy'], /^orchestrator: --idiom must be one of naive, careful, got sloppy/],
  [['--system', 'nats', '--report', ''], /^orchestrator: --report needs a path, e\.g\. --report run\.html/],
  [
    ['--system', 'nats', '--stall', 'consumer-9'],
    /^orchestrator: --stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3/,
  ],
  [['sweep', '--rate', '100,200', '--system', 'nats'], /^orchestrator sweep: Unknown argument: system/],
  // The systems' knobs as flags (systems-run/knob-flags.ts) and --compact-at (systems-run/compaction.ts).
  [
    ['--system', 'etcd', '--maxlen', '5'],
    /^orchestrator: --maxlen is not a knob of etcd \(its knobs: auto-compaction-retention, auto-compaction-mode\)/,
  ],
  [['--maxlen', '5'], /^orchestrator: --maxlen is a knob of redis-streams: it needs --system NAME/],
  [['--system', 'quic', '--history', '5'], /^orchestrator: --history is a knob of nats-kv: it needs --system NAME/],
  [['--max-pending', '5'], /^orchestrator: --max-pending is a knob of nats and nats-kv: it needs --system NAME/],
  [
    ['--system', 'nats', '--max-pending', '65536'],
    /^orchestrator: nats: max-pending must be a whole number >= 1048576/,
  ],
  [
    ['--system', 'etcd', '--auto-compaction-mode', 'weekly'],
    /^orchestrator: etcd: auto-compaction-mode must be periodic or revision, not "weekly"/,
  ],
  [['--system', 'redis-streams', '--maxlen', '1', '--maxlen', '2'], /^orchestrator: --maxlen is given 2 times/],
  [['sweep', '--rate', '100,200', '--maxlen', '5'], /^orchestrator sweep: Unknown argument: maxlen/],
  [
    ['--system', 'nats', '--compact-at', '1'],
    /^orchestrator: --compact-at: nats has no compact action \(etcd has one\)/,
  ],
  [['--system', 'etcd', '--compact-at', 'soon'], /^orchestrator: --compact-at takes seconds since publishing started/],
  [['--system', 'etcd', '--compact-at', '13'], /^orchestrator: --compact-at 13 is after publishing ends \(at 12 s\)/],
  [['--compact-at', '1'], /^orchestrator: --compact-at is for --system NAME/],
];

test.each(REFUSALS)('orchestrator %j is refused in one line, exit 2', async (args, message) => {
  const result = await answerTo(args);
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stdout).toBe('');
  expect(result.exitCode).toBe(2);
});

test('a system whose server is not on PATH is refused with the package that installs it', async () => {
  // PATH holds node alone (etcd is in /usr/bin where Debian installs it, which installed() does not add).
  const bin = mkdtempSync(join(tmpdir(), 'sd-no-etcd-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const result = await refused(['--system', 'etcd'], { PATH: bin }).finally(() =>
    rmSync(bin, { recursive: true, force: true }),
  );
  expect(result.stderr).toBe('orchestrator: etcd is not installed: apt-get install -y etcd-server (see --help)');
  expect(result.stdout).toBe('');
  expect(result.exitCode).toBe(2);
});

// parseSystemRun looks the server up on PATH: these need redis-server, as the e2e runs do.
const withRedis = installed(systemNamed('redis-pubsub')) === null ? test : test.skip;

withRedis('--slow and --crash are parsed as our broker takes them; no default stall beside them', () => {
  const options = parseSystemRun({
    system: 'redis-pubsub',
    duration: 1,
    slow: ['consumer-1@0.5-1:30'],
    crash: ['broker@1-2', 'consumer-3@2.5-3'],
  })!;
  expect(options.faults).toEqual([
    { kind: 'slow', consumer: 'consumer-1', from: 0.5, to: 1, percent: 30 },
    { kind: 'crash', consumer: 'broker', from: 1, to: 2 },
    { kind: 'crash', consumer: 'consumer-3', from: 2.5, to: 3 },
  ]);
  expect(options.stalls).toEqual([]);
  // Publishing ends at the last fault's end, or one phase after the server is back, whichever is later.
  expect(options.publishEndsAt).toBe(3);
});

withRedis('a plain --slow NAME takes the seed window and 50 %; with no fault at all, the seed stall', () => {
  const slowed = parseSystemRun({ system: 'redis-pubsub', duration: 2, slow: ['consumer-2'] })!;
  expect(slowed.faults).toEqual([{ kind: 'slow', consumer: 'consumer-2', from: 2, to: 6, percent: 50 }]);
  const seed = parseSystemRun({ system: 'redis-pubsub', duration: 2 })!;
  expect(seed.faults).toEqual([{ kind: 'stall', consumer: 'consumer-3', from: 2, to: 6 }]);
  expect(seed.stalls).toEqual(seed.faults);
});
