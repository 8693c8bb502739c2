/**
 * `orchestrator --system NAME` refusals: each one line on stderr, exit 2, nothing on stdout and
 * nothing started (the check runs before any server or probe: systems-run/system-options.ts).
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
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
  [['--system', 'nats', '--partition', 'consumer-1'], /^orchestrator: --partition is not yet for --system nats/],
  [['--system', 'nats', '--loss', 'consumer-1@1-2:10'], /^orchestrator: --loss is not yet for --system nats/],
  [['--system', 'etcd', '--crash', 'broker@1-2'], /^orchestrator: --crash is not yet for --system etcd/],
  [['--system', 'etcd', '--slow', 'consumer-1@1-2'], /^orchestrator: --slow is not yet for --system etcd/],
  [['--idiom', 'careful'], /^orchestrator: --idiom is for --system NAME/],
  [['--system', 'quic', '--idiom', 'naive'], /^orchestrator: --idiom is for --system NAME/],
  [['--system', 'nats', '--idiom', 'sloppy'], /^orchestrator: --idiom must be one of naive, careful, got sloppy/],
  [['--system', 'nats', '--report', ''], /^orchestrator: --report needs a path, e\.g\. --report run\.html/],
  [
    ['--system', 'nats', '--stall', 'consumer-9'],
    /^orchestrator: --stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3/,
  ],
  [['sweep', '--rate', '100,200', '--system', 'nats'], /^orchestrator sweep: Unknown argument: system/],
];

test.concurrent.each(REFUSALS)('orchestrator %j is refused in one line, exit 2', async (args, message) => {
  const result = await refused(args);
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
