/**
 * Which consumers share a process (run/pools.ts), and a pool's member as the orchestrator drives
 * it (PoolMember over a hand-made pool channel): every request and brokerLost names it, it hears
 * only its own messages, and what acts on a whole process is refused.
 */
import type { ChildInit, ChildMessage, ConsumerCounters } from '@state-divergence/protocol';
import { defaultPoolSize, planPools, PoolMember, poolGroups, RoleProcess } from '@state-divergence/orchestrator/internal';
import { createLogger } from '@state-divergence/runtime';

const names = (n: number) => Array.from({ length: n }, (_, i) => `consumer-${i + 1}`);

describe('pool groups', () => {
  test('K consumers a pool, in order; the last pool takes what is left', () => {
    expect(poolGroups(names(7), 3)).toEqual([['consumer-1', 'consumer-2', 'consumer-3'], ['consumer-4', 'consumer-5', 'consumer-6']]);
    expect(poolGroups(names(8), 3)).toEqual([['consumer-1', 'consumer-2', 'consumer-3'], ['consumer-4', 'consumer-5', 'consumer-6'], ['consumer-7', 'consumer-8']]);
  });

  test('a group of one runs alone, so --pool-size 1 is a process per consumer, as before pools', () => {
    expect(poolGroups(names(7), 3).flat()).not.toContain('consumer-7');
    expect(poolGroups(names(5), 1)).toEqual([]);
    expect(poolGroups([], 4)).toEqual([]);
  });

  test('the default is one pool per core', () => {
    expect(defaultPoolSize(255, 2)).toBe(128);
    expect(planPools(names(255), null, 2).map((g) => g.length)).toEqual([128, 127]);
    expect(planPools(names(6), 4, 2).map((g) => g.length)).toEqual([4, 2]);
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
  const pool = new RoleProcess({ pid: 4121, ended: new Promise(() => {}), ipc }, 'pool', 'pool-1', createLogger('test', { level: 'silent', file: null, mode: null }));
  const say = (message: ChildMessage) => {
    inbox.push(message);
    deliver();
  };
  return { pool, sent, say };
}

const counters = (applied: number): ConsumerCounters => ({ role: 'consumer', applied, lastOffset: applied, endedEarly: null, syncing: false, reconnects: 0, skippedRanges: [], coveredAfter: 0 });
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('a pool member', () => {
  test('asks its pool by name and reads the reply as a consumer\'s; its errors name it with its pool', async () => {
    const { pool, sent, say } = fakePool();
    await pool.channel.configure({ role: 'pool' } as ChildInit);
    const member = new PoolMember(pool, 'consumer-2');
    expect([member.name, member.pool, member.pid, member.role, member.command]).toEqual(['consumer-2', 'pool-1', 4121, 'consumer', null]);
    const asked = member.status(5_000);
    expect(sent.at(-1)).toEqual({ type: 'request', id: 1, kind: 'status', member: 'consumer-2' });
    say({ type: 'reply', id: 1, kind: 'status', value: counters(7) });
    await expect(asked).resolves.toEqual(counters(7));
    const refused = member.digest(5_000);
    say({ type: 'refused', id: 2, kind: 'digest', message: 'it hosts no consumer named consumer-2' });
    await expect(refused).rejects.toThrow('consumer-2 (in pool-1, pid 4121) cannot serve a digest request: it hosts no consumer named consumer-2');
  });

  test('hears its own progress and early end, not another member\'s; the pool\'s failure is its own too', async () => {
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

  test('brokerLost is sent as its own; a phase, ending and stop are its pool\'s (told once, as a process); freeze, thaw and kill are refused', async () => {
    const { pool, sent } = fakePool();
    await pool.channel.configure({ role: 'pool' } as ChildInit);
    const member = new PoolMember(pool, 'consumer-2');
    member.send({ type: 'brokerLost' });
    member.send({ type: 'phase', phase: 'checking' });
    member.send({ type: 'ending' });
    member.send({ type: 'stop' });
    expect(sent.slice(1)).toEqual([{ type: 'brokerLost', member: 'consumer-2' }]);
    for (const act of [() => member.freeze(), () => member.thaw(), () => member.kill()]) expect(act).toThrow(/^consumer-2 \(in pool-1, pid 4121\) cannot be \w+ alone: it shares its process with the other consumers of pool-1/);
    await expect(member.stop()).resolves.toBeUndefined();
  });
});
