/**
 * Which consumers share a process (run/pools.ts), and a pool's member as the orchestrator drives
 * it (PoolMember over a hand-made pool channel): every request and brokerLost names it, it hears
 * only its own messages, and what acts on a whole process is refused.
 */
import type { ChildInit, ChildMessage, ConsumerCounters } from '@state-divergence/protocol';
import { normalizeOptions } from '@state-divergence/orchestrator';
import {
  buildPlan,
  defaultPoolSize,
  planPools,
  PoolMember,
  poolGroups,
  RoleProcess,
} from '@state-divergence/orchestrator/internal';
import { createLogger } from '@state-divergence/runtime';

const tty = { stderrIsTTY: false };
const names = (n: number) => Array.from({ length: n }, (_, i) => `consumer-${i + 1}`);

describe('pool groups', () => {
  test('K consumers a pool, in order; the last pool takes what is left', () => {
    expect(poolGroups(names(7), 3)).toEqual([
      ['consumer-1', 'consumer-2', 'consumer-3'],
      ['consumer-4', 'consumer-5', 'consumer-6'],
    ]);
    expect(poolGroups(names(8), 3)).toEqual([
      ['consumer-1', 'consumer-2', 'consumer-3'],
      ['consumer-4', 'consumer-5', 'consumer-6'],
      ['consumer-7', 'consumer-8'],
    ]);
  });

  test('a group of one runs alone, so --pool-size 1 is a process per consumer, as before pools', () => {
    expect(poolGroups(names(7), 3).flat()).not.toContain('consumer-7');
    expect(poolGroups(names(5), 1)).toEqual([]);
    expect(poolGroups([], 4)).toEqual([]);
  });

  test('the default is one pool per core but one (left to the broker): on 2 cores every healthy consumer in one pool', () => {
    expect(defaultPoolSize(255, 2)).toBe(255);
    expect(defaultPoolSize(255, 4)).toBe(85);
    expect(defaultPoolSize(2, 1)).toBe(2);
    const plan = buildPlan(normalizeOptions({ consumers: 256 }, tty));
    expect(planPools({ starting: names(256), plan, foreign: [], size: null, cores: 2 }).map((g) => g.length)).toEqual([
      255,
    ]);
    // The seed's demo: three consumers, the last one stalled; the other two share a process.
    expect(
      planPools({ starting: names(3), plan: buildPlan(normalizeOptions({}, tty)), foreign: [], size: null, cores: 2 }),
    ).toEqual([['consumer-1', 'consumer-2']]);
  });

  test('a consumer the plan faults in any way, or a foreign one, runs alone; the late joiner is not among those starting', () => {
    const options = normalizeOptions(
      {
        consumers: 10,
        stall: ['consumer-2'],
        slow: ['consumer-3@1-2'],
        crash: ['consumer-4@1-2'],
        partition: ['consumer-5@1-2'],
        loss: ['consumer-6@1-2:20'],
        delay: ['consumer-7@1-2:50'],
        joinLate: 'consumer-10',
        consumerCmd: ['consumer-9=node examples/consumer-js/main.js'],
      },
      tty,
    );
    const starting = names(10).filter((name) => name !== options.joinLate);
    expect(planPools({ starting, plan: buildPlan(options), foreign: ['consumer-9'], size: 4, cores: 2 })).toEqual([
      ['consumer-1', 'consumer-8'],
    ]);
    // The publisher's link is no consumer's fault.
    const publisherFault = buildPlan(normalizeOptions({ consumers: 3, partition: ['publisher@1-2'] }, tty));
    expect(planPools({ starting: names(3), plan: publisherFault, foreign: [], size: 3, cores: 2 })).toEqual([names(3)]);
  });
});

/** A pool process that never ran: what the orchestrator sends it is kept, and it "says" what the test makes it say. */
function fakePool() {
  const sent: unknown[] = [];
  const inbox: ChildMessage[] = [];
  let deliver: () => void = () => {};
  const ipc = {
    async *getEachMessage() {
      for (;;) {
        while (inbox.length > 0) yield inbox.shift();
        await new Promise<void>((resolve) => (deliver = resolve));
      }
    },
    sendMessage(message: object): Promise<void> {
      sent.push(message);
      return Promise.resolve();
    },
  };
  const pool = new RoleProcess(
    { pid: 4121, ended: new Promise(() => {}), ipc },
    'pool',
    'pool-1',
    createLogger('test', { level: 'silent', file: null, mode: null }),
  );
  const say = (message: ChildMessage) => {
    inbox.push(message);
    deliver();
  };
  return { pool, sent, say };
}

const counters = (applied: number): ConsumerCounters => ({
  role: 'consumer',
  applied,
  lastOffset: applied,
  endedEarly: null,
  syncing: false,
  reconnects: 0,
  skippedRanges: [],
  coveredAfter: 0,
});
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('a pool member', () => {
  test("asks its pool by name and reads the reply as a consumer's; its errors name it with its pool", async () => {
    const { pool, sent, say } = fakePool();
    await pool.channel.configure({ role: 'pool' } as ChildInit);
    const member = new PoolMember(pool, 'consumer-2');
    expect([member.name, member.pool, member.pid, member.role, member.command]).toEqual([
      'consumer-2',
      'pool-1',
      4121,
      'consumer',
      null,
    ]);
    const asked = member.status(5_000);
    expect(sent.at(-1)).toEqual({ type: 'request', id: 1, kind: 'status', member: 'consumer-2' });
    say({ type: 'reply', id: 1, kind: 'status', value: counters(7) });
    await expect(asked).resolves.toEqual(counters(7));
    const refused = member.digest(5_000);
    say({ type: 'refused', id: 2, kind: 'digest', message: 'it hosts no consumer named consumer-2' });
    await expect(refused).rejects.toThrow(
      'consumer-2 (in pool-1, pid 4121) cannot serve a digest request: it hosts no consumer named consumer-2',
    );
  });

  test("hears its own progress and early end, not another member's; the pool's failure is its own too", async () => {
    const { pool, say } = fakePool();
    const member = new PoolMember(pool, 'consumer-2');
    const heard: ChildMessage[] = [];
    member.on((m) => heard.push(m));
    say({ type: 'progress', counters: counters(3), member: 'consumer-1' });
    say({ type: 'ended', reason: 'the broker closed its stream', member: 'consumer-1' });
    say({ type: 'progress', counters: counters(5), member: 'consumer-2' });
    say({ type: 'ended', reason: 'the broker closed its stream', member: 'consumer-2' });
    say({ type: 'fatal', message: 'boom' });
    await tick();
    expect(heard.map((m) => m.type)).toEqual(['progress', 'ended', 'fatal']);
    expect(member.latest?.applied).toBe(5);
  });

  test("brokerLost is sent as its own; a phase, ending and stop are its pool's (told once, as a process); freeze, thaw and kill are refused", async () => {
    const { pool, sent } = fakePool();
    await pool.channel.configure({ role: 'pool' } as ChildInit);
    const member = new PoolMember(pool, 'consumer-2');
    member.send({ type: 'brokerLost' });
    member.send({ type: 'phase', phase: 'checking' });
    member.send({ type: 'ending' });
    member.send({ type: 'stop' });
    expect(sent.slice(1)).toEqual([{ type: 'brokerLost', member: 'consumer-2' }]);
    for (const act of [() => member.freeze(), () => member.thaw(), () => member.kill()])
      expect(act).toThrow(
        /^consumer-2 \(in pool-1, pid 4121\) cannot be \w+ alone: it shares its process with the other consumers of pool-1/,
      );
    await expect(member.stop()).resolves.toBeUndefined();
  });
});
