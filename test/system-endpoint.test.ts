/**
 * `--endpoint URL` and its credentials, checked before anything starts (systems-run/endpoint.ts,
 * credentials-source.ts): each refusal one line, exit 2, nothing on stdout, and no secret in it
 * (read in-process from the CLI's own check, test/helpers/command-line.ts; one from the real bin, to
 * see it print the same line); the URL a report prints holds no user; the secrets a library might
 * echo are struck.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { redact, systemNamed } from '@state-divergence/systems';
import { heldWhere, parseEndpoint, readCredentials, redactRun } from '@state-divergence/orchestrator/systems-internal';
import { answerTo } from './helpers/command-line.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

const SECRET = 'hunter2-not-to-be-seen';
const dir = mkdtempSync(join(tmpdir(), 'sd-endpoint-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const orchestrator = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [ORCHESTRATOR, ...args], { reject: false, env: { NODE_OPTIONS: '', ...env } });

const unknownName = file('unknown.env', `SD_PASSWORD=${SECRET}\nPASSWORD=${SECRET}\n`);
const notAssignment = file('broken.env', `# a comment\n\n${SECRET}\n`);
const missingCa = file('missing-ca.env', 'SD_TLS_CA=no-such-ca.pem\n');
file('ca.pem', '-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n');
const withCa = file('with-ca.env', 'SD_TLS_CA=ca.pem\n');
const userOnly = file('user.env', 'SD_USERNAME=alice\n');

const REFUSALS: Array<[string, string[], Record<string, string>, RegExp]> = [
  [
    'without --system',
    ['--endpoint', 'http://127.0.0.1:2379'],
    {},
    /--endpoint and --credentials are for --system NAME/,
  ],
  [
    '--credentials without --endpoint',
    ['--system', 'etcd', '--credentials', withCa],
    {},
    /--credentials is for --endpoint/,
  ],
  [
    'with --system all',
    ['--system', 'all', '--endpoint', 'http://127.0.0.1:2379'],
    {},
    /for one --system NAME, not all/,
  ],
  [
    'a broker crash',
    ['--system', 'etcd', '--endpoint', 'http://127.0.0.1:2379', '--crash', 'consumer-1@1-2,broker@2-3'],
    {},
    /--crash broker@… kills the server: not one someone else runs \(--endpoint\)/,
  ],
  [
    "a knob of the server's own configuration",
    ['--system', 'nats', '--endpoint', 'nats://127.0.0.1:4222', '--max-pending', '1048576'],
    {},
    /--max-pending is nats's server setting; with --endpoint the server is not ours to configure: set it on the server/,
  ],
  [
    'a password in the URL',
    ['--system', 'redis-streams', '--endpoint', `redis://me:${SECRET}@127.0.0.1:6379`],
    {},
    /--endpoint holds a password: put it in --credentials FILE/,
  ],
  [
    "another system's scheme",
    ['--system', 'etcd', '--endpoint', 'redis://127.0.0.1:6379'],
    {},
    /--endpoint for etcd must be http:\/\/ or https:\/\/HOST\[:PORT\] \(port 2379 if none\)/,
  ],
  [
    'not a URL',
    ['--system', 'nats', '--endpoint', `//${SECRET}:x`],
    {},
    /--endpoint for nats must be a URL: nats:\/\//,
  ],
  [
    'a secret where the scheme goes',
    ['--system', 'nats', '--endpoint', `${SECRET}:x`],
    {},
    /must be nats:\/\/ or tls:\/\//,
  ],
  [
    'a path etcd does not take',
    ['--system', 'etcd', '--endpoint', 'http://127.0.0.1:2379/v3'],
    {},
    /takes no path \/v3/,
  ],
  [
    'a credential the system does not take',
    ['--system', 'etcd', '--endpoint', 'http://127.0.0.1:2379'],
    { SD_TOKEN: SECRET },
    /etcd takes no SD_TOKEN \(it takes SD_USERNAME, SD_PASSWORD, SD_TLS_CA\/SD_TLS_CERT\/SD_TLS_KEY\)/,
  ],
  [
    'TLS credentials over plain http',
    ['--system', 'etcd', '--endpoint', 'http://127.0.0.1:2379', '--credentials', withCa],
    {},
    /TLS credentials need a TLS --endpoint: https:\/\//,
  ],
  [
    'a user with no password',
    ['--system', 'redis-pubsub', '--endpoint', 'redis://127.0.0.1:6379', '--credentials', userOnly],
    {},
    /a user needs its password: SD_PASSWORD/,
  ],
  [
    'an unknown name in the file',
    ['--system', 'redis-pubsub', '--endpoint', 'redis://127.0.0.1:6379', '--credentials', unknownName],
    {},
    /line 2 names PASSWORD; the names are SD_USERNAME, SD_PASSWORD, SD_TOKEN, SD_TLS_CA, SD_TLS_CERT, SD_TLS_KEY/,
  ],
  [
    'a line that is not NAME=VALUE',
    ['--system', 'redis-pubsub', '--endpoint', 'redis://127.0.0.1:6379', '--credentials', notAssignment],
    {},
    /line 3 is not NAME=VALUE/,
  ],
  [
    'a TLS file that is not there',
    ['--system', 'etcd', '--endpoint', 'https://127.0.0.1:2379', '--credentials', missingCa],
    {},
    /SD_TLS_CA in --credentials .*: cannot read no-such-ca\.pem \(ENOENT\)/,
  ],
];

test.each(REFUSALS)('--endpoint %s: refused in one line, exit 2, no secret', async (_, args, env, message) => {
  const result = await answerTo(args, env);
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toContain(SECRET);
  expect(result.exitCode).toBe(2);
});

test('the real bin prints the refusal its check gives, exits 2 and starts nothing: a password in the URL', async () => {
  const args = ['--system', 'redis-streams', '--endpoint', `redis://me:${SECRET}@127.0.0.1:6379`];
  const checked = await answerTo(args);
  expect(checked.stderr).toMatch(/^orchestrator: --endpoint holds a password: put it in --credentials FILE/);
  const result = await orchestrator(args);
  expect(result.stderr).toBe(checked.stderr.trimEnd());
  expect(result.stdout).toBe(''); // a run that started would have said so here ("redis-streams (naive): running")
  expect(result.exitCode).toBe(2);
});

test('a server someone runs needs no binary here: not refused as not installed, but unreachable', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'sd-no-etcd-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const result = await orchestrator(['--system', 'etcd', '--endpoint', 'http://127.0.0.1:1'], { PATH: bin }).finally(
    () => rmSync(bin, { recursive: true, force: true }),
  );
  expect(result.stderr).toBe('orchestrator: etcd at http://127.0.0.1:1 is not reachable: ECONNREFUSED');
  expect(result.exitCode).toBe(1);
});

describe('parseEndpoint', () => {
  test("a URL's user goes to the credentials; the URL kept is scheme, host, port (the default if none)", () => {
    const endpoint = parseEndpoint(systemNamed('redis-streams'), 'redis://alice@db.example/2', { password: SECRET });
    expect(endpoint.url).toBe('redis://db.example:6379/2');
    expect(endpoint.port).toBe(6379);
    expect(endpoint.credentials).toEqual({ username: 'alice', password: SECRET });
    expect(endpoint.monitorUrl).toBeUndefined();
  });

  test("each system's counters are looked for where it serves them; no credentials, none carried", () => {
    const etcd = parseEndpoint(systemNamed('etcd'), 'https://10.0.0.5', {});
    expect(etcd).toEqual({ url: 'https://10.0.0.5:2379', port: 2379, monitorUrl: 'https://10.0.0.5:2379' });
    const nats = parseEndpoint(systemNamed('nats-kv'), 'tls://[::1]:4333', { token: SECRET });
    expect(nats.url).toBe('tls://[::1]:4333');
    expect(nats.monitorUrl).toBe('http://[::1]:8222');
    expect(nats.credentials).toEqual({ token: SECRET });
  });
});

describe('readCredentials', () => {
  test('a file: quotes taken off, comments skipped, TLS paths read relative to the file, the environment left out', () => {
    const path = file('full.env', `# mine\nSD_USERNAME=alice\nSD_PASSWORD="${SECRET}"\nSD_TLS_CA=ca.pem\n`);
    const credentials = readCredentials(path, { SD_TOKEN: 'from-env' });
    expect(credentials).toEqual({
      username: 'alice',
      password: SECRET,
      tls: { ca: '-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n' },
    });
  });

  test('no file: the SD_* variables, an empty one absent', () => {
    expect(readCredentials(undefined, { SD_PASSWORD: SECRET, SD_TOKEN: '', HOME: '/root' })).toEqual({
      password: SECRET,
    });
    expect(readCredentials(undefined, {})).toEqual({});
  });
});

test('what a library echoes loses the secrets before a report or --json prints it', () => {
  expect(redact(`AUTH ${SECRET} refused; token tok-123`, { password: SECRET, token: 'tok-123' })).toBe(
    'AUTH [redacted] refused; token [redacted]',
  );
  const consumer = {
    name: 'consumer-1',
    stalled: false,
    applied: 1,
    relists: 0,
    restarts: [],
    lostHeld: 0,
    state: 'wrong' as const,
    lastChangeAt: 1,
    appliedLastSecond: 0,
    wrongKeys: ['k1'],
    explained: [],
    unexplained: [{ key: 'k1', why: `held ${SECRET}` }],
    outOfOrder: 0,
    signals: [{ kind: 'error', at: 1, detail: `WRONGPASS for ${SECRET}` }],
  };
  const run = {
    system: 'redis-streams',
    idiom: 'naive',
    prefix: 'sd-x',
    endpoint: 'redis://127.0.0.1:6379',
    knobs: { maxlen: '1000' },
    compactions: [],
    published: 1,
    acknowledged: 1,
    authorityKeys: 1,
    faults: [],
    relays: [],
    stalls: [],
    server: {
      restarts: [],
      failedWrites: 0,
      firstFailureAt: null,
      lastFailureAt: null,
      failure: null,
      keptFailed: 0,
      lostByServer: [],
      findings: [],
    },
    counters: { before: {}, after: {} },
    healthyLatency: null,
    drain: { ms: 2000, ended: 'quiet' as const, minMs: 2000, quietMs: 2000, boundMs: 4000 },
    consumers: [consumer],
    unexplained: 1,
  };
  expect(JSON.stringify(redactRun(run, { password: SECRET }))).not.toContain(SECRET);
  expect(redactRun(run, undefined)).toBe(run);
});

test("a remote server's send queue is said to be out of sight, not printed as 0", () => {
  const stall = {
    consumer: 'consumer-3',
    from: 2,
    to: 6,
    acknowledged: 1600,
    ratePerSec: 400,
    heldReceiveQueue: 4096,
    heldServerSendQueue: null,
    heldConnections: 1,
    heldClosedByServer: 0,
  };
  expect(heldWhere(stall, 64)).toBe(
    "the consumer's receive queue held 4,096 B of ~102,400 B written; the rest is the remote server's " +
      "(its kernel's send queue, its buffers, log or stream), which this machine cannot see",
  );
  expect(heldWhere(stall, 64, true)).toBe('rx 4,096 B of ~102,400 B; server side not visible');
  expect(heldWhere({ ...stall, heldServerSendQueue: 0 }, 64, true)).toBe('server (kernel 4,096 B of ~102,400 B)');
});
