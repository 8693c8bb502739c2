/**
 * `orchestrator --system NAME` with network faults, end to end (systems-run/network-links.ts, the
 * relay's TCP mode): real servers, probe processes, a relay child process in front of the faulted
 * faulted consumer. The four runs go side by side, and each redis-pubsub run carries both of its
 * faults (on two consumers), to keep the file short.
 *
 * - A 4 s `--partition consumer-3@…` on etcd and on redis-pubsub, both idioms: the relay holds the
 *   server's bytes (connections open) and forwards them in order at the heal, so every idiom ends
 *   correct; what it held at the heal is the relay's own count. etcd's HTTP/2 flow control stops
 *   the server at its window (~64 KiB), the rest waits in etcd; Redis pub/sub writes on.
 * - A `--reset` of the frozen (stalled) consumer's connections on redis-pubsub: whatever was
 *   published from the stall's bytes in flight until it resubscribed is gone. Naive ends wrong, each
 *   wrong key explained by the reset and the disconnect/reconnect it saw; careful relists on its
 *   reconnect and ends correct.
 */
import { execa } from 'execa';
import { installed, SYSTEMS } from '@state-divergence/systems';
import { ORCHESTRATOR } from './helpers/run-demo.js';

interface Consumer {
  name: string;
  state: string;
  wrongKeys: string[];
  relists: number;
  explained: { keys: number; evidence: string }[];
  unexplained: unknown[];
  signals: { kind: string; at: number }[];
}
interface Relay {
  client: string;
  connections: number;
  forwardedBytes: { up: number; down: number };
  heals: { up: number; down: number }[];
  resetConnections: number;
}
interface Run {
  system: string;
  idiom: string;
  faults: { kind: string; target: string; from: number; to: number }[];
  relays: Relay[];
  consumers: Consumer[];
  unexplained: number;
}

const PARTITION = ['--partition', 'consumer-3@0.5-4.5'];
/** consumer-2 partitioned, consumer-3 frozen and its connections reset inside the stall; consumer-1 untouched. */
const REDIS = ['--partition', 'consumer-2@0.5-4.5', '--stall', 'consumer-3@0.5-4', '--reset', 'consumer-3@2'];

async function run(system: string, idiom: string, args: string[]): Promise<Run> {
  const result = await execa(
    process.execPath,
    [ORCHESTRATOR, '--system', system, '--idiom', idiom, '--duration', '1', '--json', ...args],
    { reject: false, env: { NODE_OPTIONS: '' } },
  );
  if (result.exitCode !== 0) throw new Error(`${system} ${idiom}: exit ${result.exitCode}: ${result.stderr}`);
  const document = JSON.parse(result.stdout) as { version: number; runs: Run[] };
  expect(document.version).toBe(4);
  return document.runs[0]!;
}

/** What a run ended with, one line per faulted consumer in the test's output. */
function describeRun(r: Run): string {
  return r.relays
    .map((relay) => {
      const c = r.consumers.find((one) => one.name === relay.client)!;
      const faults = r.faults.filter((f) => f.target === relay.client).map((f) => `${f.kind}@${f.from}-${f.to}`);
      return (
        `${r.system} ${r.idiom} ${relay.client} ${faults.join(' ')}: wrong ${c.wrongKeys.length}, ` +
        `signals ${c.signals.map((s) => s.kind).join(' ') || 'none'}, relay held at the heal ` +
        `${JSON.stringify(relay.heals)}, connections ${relay.connections}, reset ${relay.resetConnections}`
      );
    })
    .join('\n');
}

/** The relay of a partitioned consumer: one heal, with the server's bytes held then; no reset; the consumer correct. */
function expectPartitionHeld(r: Run, name: string): void {
  const relay = r.relays.find((one) => one.client === name)!;
  expect(relay.heals).toHaveLength(1);
  expect(relay.heals[0]!.down).toBeGreaterThan(1_000);
  expect(relay.resetConnections).toBe(0);
  // Held, not lost: it ends correct, and saw no disconnect.
  const c = r.consumers.find((one) => one.name === name)!;
  expect(c.state).toBe('correct');
  expect(c.signals.map((s) => s.kind)).not.toContain('disconnect');
}

/** Every wrong key of every consumer explained, none unexplained. */
function expectExplained(r: Run): void {
  expect(r.unexplained).toBe(0);
  for (const c of r.consumers) {
    expect(c.unexplained).toEqual([]);
    expect(c.explained.reduce((sum, e) => sum + e.keys, 0)).toBe(c.wrongKeys.length);
  }
}

const here = (name: string) => installed(SYSTEMS.find((s) => s.name === name)!) === null;
const ifAll = (names: string[]) => (names.every(here) ? test : test.skip);

ifAll(['etcd', 'redis-pubsub'])(
  "a consumer's 4 s partition on etcd and redis-pubsub; a reset inside a redis-pubsub stall",
  async () => {
    const [etcdNaive, etcdCareful, redisNaive, redisCareful] = await Promise.all([
      run('etcd', 'naive', PARTITION),
      run('etcd', 'careful', PARTITION),
      run('redis-pubsub', 'naive', REDIS),
      run('redis-pubsub', 'careful', REDIS),
    ]);
    for (const r of [etcdNaive, etcdCareful, redisNaive, redisCareful]) {
      console.log(describeRun(r));
      expectExplained(r);
      expect(r.consumers[0]!.state).toBe('correct');
    }
    for (const r of [etcdNaive, etcdCareful]) {
      expect(r.faults).toEqual([expect.objectContaining({ kind: 'partition', target: 'consumer-3', from: 0.5 })]);
      expect(r.relays.map((relay) => relay.client)).toEqual(['consumer-3']);
      expectPartitionHeld(r, 'consumer-3');
      expect(r.consumers.map((c) => c.state)).toEqual(['correct', 'correct', 'correct']);
    }
    for (const r of [redisNaive, redisCareful]) {
      expect(r.relays.map((relay) => relay.client)).toEqual(['consumer-2', 'consumer-3']);
      expectPartitionHeld(r, 'consumer-2');
      const reset = r.relays[1]!;
      expect(reset.resetConnections).toBeGreaterThanOrEqual(1);
      // The subscriber learnt of the reset at its thaw, and reconnected through the relay.
      expect(r.consumers[2]!.signals.map((s) => s.kind)).toEqual(expect.arrayContaining(['disconnect', 'reconnect']));
      expect(reset.connections).toBeGreaterThan(reset.resetConnections);
    }
    // Naive: what was published from the reset until it resubscribed never came. The judge names the
    // reset for what was written before the reconnect; a write just after ioredis's reconnect and
    // before its SUBSCRIBE was re-sent has the signals alone (which side of it a write falls is timing).
    const frozen = redisNaive.consumers[2]!;
    expect(frozen.state).toBe('wrong');
    expect(frozen.wrongKeys.length).toBeGreaterThan(50);
    for (const { evidence } of frozen.explained) expect(evidence).toMatch(/disconnect 1, reconnect 1/);
    const byReset = frozen.explained.find((e) => e.evidence.includes('its connection was reset at 2 s'));
    expect(byReset?.keys).toBeGreaterThan(frozen.wrongKeys.length / 2);
    // Careful: its reconnect relisted, and it ends as the server is.
    expect(redisCareful.consumers[2]!.state).toBe('correct');
    expect(redisCareful.consumers[2]!.relists).toBeGreaterThanOrEqual(1);
  },
);
