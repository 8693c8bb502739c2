/**
 * The systems as values (packages/systems): what the harness will rely on without starting a
 * server. Each system's own knobs take their own defaults; a knob it does not have, or a value
 * it would not take, is refused in one line; a missing server binary is refused naming the
 * Debian package to install.
 */
import { installed, knobValues, SYSTEMS, systemNamed, type TargetSystem } from '@state-divergence/systems';
import { SYSTEM_KNOBS } from '@state-divergence/systems/knobs';

test('five systems, each named once, each with its Debian package and a server binary', () => {
  expect(SYSTEMS.map((s) => s.name)).toEqual(['etcd', 'nats', 'nats-kv', 'redis-pubsub', 'redis-streams']);
  expect(SYSTEMS.map((s) => s.package)).toEqual([
    'etcd-server',
    'nats-server',
    'nats-server',
    'redis-server',
    'redis-server',
  ]);
  expect(SYSTEMS.map((s) => s.server.binary)).toEqual([
    'etcd',
    'nats-server',
    'nats-server',
    'redis-server',
    'redis-server',
  ]);
});

test('every knob default is a value its own check takes', () => {
  for (const system of SYSTEMS) {
    const values = knobValues(system);
    expect(Object.keys(values)).toEqual(system.knobs.map((k) => k.name));
    for (const knob of system.knobs) expect(knob.check(knob.default)).toBeUndefined();
  }
});

test("the client-free knob list (the CLI's flags) is each system's own, in SYSTEMS' order", () => {
  expect(SYSTEM_KNOBS.map((entry) => entry.name)).toEqual(SYSTEMS.map((system) => system.name));
  SYSTEM_KNOBS.forEach((entry, i) => expect(entry.knobs).toBe(SYSTEMS[i]!.knobs));
});

test('a knob the system lacks, or a value it would not take, is refused in one line', () => {
  expect(() => knobValues(systemNamed('redis-pubsub'), { history: '5' })).toThrow(
    'redis-pubsub has no knob history (its knobs: client-output-buffer-limit-pubsub)',
  );
  expect(() => knobValues(systemNamed('nats'), { 'max-pending': '65536' })).toThrow(
    /^nats: max-pending must be a whole number >= 1048576/,
  );
  expect(() => knobValues(systemNamed('redis-streams'), { maxlen: '~1000' })).toThrow(
    'redis-streams: maxlen must be a whole number >= 0, not "~1000"',
  );
  expect(() => systemNamed('kafka')).toThrow(
    'no system kafka (there are: etcd, nats, nats-kv, redis-pubsub, redis-streams)',
  );
});

test('a system whose server binary is missing is refused in one line naming its package', () => {
  const etcd = systemNamed('etcd');
  const absent: TargetSystem = {
    ...etcd,
    server: { ...etcd.server, binary: 'etcd-not-on-this-machine' },
  };
  expect(installed(absent)).toBe('etcd is not installed: apt-get install -y etcd-server');
});

test('each server recipe puts its knobs on its command line or in its config file', () => {
  const dir = '/tmp/sd-x';
  const redis = systemNamed('redis-pubsub');
  expect(
    redis.server.argv([6400], dir, knobValues(redis, { 'client-output-buffer-limit-pubsub': '64kb 16kb 1' })),
  ).toEqual(
    expect.arrayContaining(['--client-output-buffer-limit', 'pubsub 64kb 16kb 1', '--save', '', '--appendonly', 'no']),
  );
  const nats = systemNamed('nats-kv');
  expect(nats.server.files?.([4222, 8222], dir, knobValues(nats, { 'write-deadline': '500ms' }))).toEqual({
    'nats.conf': 'write_deadline: "500ms"\nmax_pending: 67108864\n',
  });
  expect(nats.server.argv([4222, 8222], dir, knobValues(nats))).toEqual(
    expect.arrayContaining(['-js', '-sd', `${dir}/jetstream`]),
  );
  const etcd = systemNamed('etcd');
  expect(etcd.server.argv([2379, 2380], dir, knobValues(etcd, { 'auto-compaction-retention': '5s' }))).toEqual(
    expect.arrayContaining(['--auto-compaction-retention', '5s', '--initial-cluster', 'sd=http://127.0.0.1:2380']),
  );
});
