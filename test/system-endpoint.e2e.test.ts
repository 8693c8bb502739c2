/**
 * `orchestrator --system NAME --endpoint URL`: a server the test starts itself, as a user's own
 * (startServer, then the user's key written outside any run's prefix), used by a run that starts
 * none. The run ends as a run that started its own server does (both run side by side), leaves
 * nothing under its prefix and the user's key as it was, and its credentials (a Redis
 * `requirepass`, given through --credentials) reach no output. A wrong password and a port nobody
 * listens on end in one line, exit 1; a fault of the server is refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { knobValues, startServer, systemNamed, type RunningServer } from '@state-divergence/systems';
import { ORCHESTRATOR } from './helpers/run-demo.js';
import { describeIfInstalled } from './helpers/system-run.js';

interface Consumer {
  name: string;
  state: string;
  wrongKeys: string[];
  explained: { keys: number; evidence: string }[];
  signals: { kind: string }[];
}
interface Run {
  endpoint: string | null;
  prefix: string;
  unexplained: number;
  consumers: Consumer[];
}

// A run that hangs is SIGKILLed before jest's 90 s timeout gives up on it (its guardian then reaps the rest),
// so a failing test leaves nothing running: one hung in a QUIT that never came back once.
const orchestrator = (args: string[]) =>
  execa(process.execPath, [ORCHESTRATOR, ...args], {
    reject: false,
    env: { NODE_OPTIONS: '' },
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });

/** One run's --json, its whole output kept to be searched for a secret. */
async function runOf(args: string[]): Promise<{ run: Run; output: string }> {
  const result = await orchestrator([...args, '--json']);
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  const document = JSON.parse(result.stdout) as { runs: Run[] };
  expect(document.runs).toHaveLength(1);
  return { run: document.runs[0]!, output: result.stdout + result.stderr };
}

/** What a person compares between two runs: each consumer's state and the evidence for its wrong keys. */
const outcome = (run: Run) =>
  run.consumers.map((c) => ({ name: c.name, state: c.state, evidence: c.explained.map((e) => e.evidence) }));

async function started(name: string): Promise<RunningServer> {
  const system = systemNamed(name);
  return startServer(name, system.server, knobValues(system));
}

const dir = mkdtempSync(join(tmpdir(), 'sd-endpoint-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function credentialsFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `# the test's own Redis\n${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

describeIfInstalled(systemNamed('redis-streams'))('--endpoint: a Redis someone runs, with a password', () => {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  let server: RunningServer;
  let admin: Redis;
  let url: string;

  beforeAll(async () => {
    server = await started('redis-streams');
    url = server.endpoint.url;
    admin = new Redis(url, { lazyConnect: true });
    await admin.connect();
    await admin.config('SET', 'requirepass', password);
    await admin.auth(password);
    await admin.set('user:own', 'mine');
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  test('naive: as a run that started its server (consumer-3 wrong, explained); nothing left, no password shown', async () => {
    // consumer-3 is wrong only once the stream has been trimmed past it: more than MAXLEN ~1000 (up to 1,100 kept)
    // written in its stall. The seed's 2 s stall at 1,000/s needed a pace over 550/s: beside four CPU hogs the two
    // runs side by side reached 618/s once, 1,236 entries and 25 wrong keys. A 4 s stall needs only 275/s.
    const timing = ['--system', 'redis-streams', '--duration', '1', '--rate', '1000', '--stall', 'consumer-3@1-5'];
    const file = credentialsFile('redis.env', [`SD_PASSWORD="${password}"`]);
    const [remote, own] = await Promise.all([
      runOf([...timing, '--endpoint', url, '--credentials', file]),
      runOf(timing),
    ]);
    expect(remote.run.endpoint).toBe(url);
    expect(own.run.endpoint).toBeNull();
    expect(outcome(remote.run)).toEqual(outcome(own.run));
    const [one, two, three] = remote.run.consumers;
    expect([one!.state, two!.state, three!.state]).toEqual(['correct', 'correct', 'wrong']);
    expect(three!.explained).toEqual([
      { keys: three!.wrongKeys.length, evidence: 'never delivered, no signal at all' },
    ]);
    expect(remote.run.unexplained).toBe(0);
    // Read the server directly: the run's keys gone, the user's untouched.
    expect(await admin.keys('*')).toEqual(['user:own']);
    expect(await admin.get('user:own')).toBe('mine');
    expect(remote.output).not.toContain(password);
  });

  test('a wrong password: one line naming the server, exit 1, the password given in no output', async () => {
    const wrong = `wrong-${randomBytes(12).toString('hex')}`;
    const file = credentialsFile('wrong.env', [`SD_PASSWORD=${wrong}`]);
    const result = await orchestrator(['--system', 'redis-streams', '--endpoint', url, '--credentials', file]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `orchestrator: redis-streams at ${url}: WRONGPASS invalid username-password pair or user is disabled.`,
    );
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(await admin.keys('*')).toEqual(['user:own']);
  });

  test('a fault of the server is refused in one line, exit 2, nothing touched', async () => {
    const result = await orchestrator(['--system', 'redis-streams', '--endpoint', url, '--crash', 'broker@1-2']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^orchestrator: --crash broker@… kills the server: not one someone else runs/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(await admin.keys('*')).toEqual(['user:own']);
  });
});

describeIfInstalled(systemNamed('etcd'))('--endpoint: an etcd someone runs', () => {
  let server: RunningServer;
  let client: Etcd3;

  beforeAll(async () => {
    server = await started('etcd');
    client = new Etcd3({ hosts: server.endpoint.url });
    await client.put('user/own').value('mine');
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  test('naive: every consumer correct, as a run that started its server; nothing left under the prefix', async () => {
    const timing = ['--system', 'etcd', '--duration', '0.5'];
    const [remote, own] = await Promise.all([runOf([...timing, '--endpoint', server.endpoint.url]), runOf(timing)]);
    expect(outcome(remote.run)).toEqual(outcome(own.run));
    expect(remote.run.consumers.map((c) => c.state)).toEqual(['correct', 'correct', 'correct']);
    expect(await client.getAll().prefix(`${remote.run.prefix}/`).keys()).toEqual([]);
    expect(await client.getAll().keys()).toEqual(['user/own']);
    expect(await client.get('user/own').string()).toBe('mine');
  });
});

test('a port nobody listens on: one line, exit 1, nothing started', async () => {
  // A port just freed by the kernel: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const result = await orchestrator(['--system', 'etcd', '--endpoint', `http://127.0.0.1:${port}`]);
  expect(result.stderr).toBe(`orchestrator: etcd at http://127.0.0.1:${port} is not reachable: ECONNREFUSED`);
  expect(result.exitCode).toBe(1);
  expect(result.stdout).not.toMatch(/consumer/);
});
