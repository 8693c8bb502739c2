import type { ChildMessage, ConsumerInit, PoolCounters, PoolInit, PoolReport } from '@state-divergence/protocol';
import {
  cpuMicros,
  createLogger,
  errorMessage,
  logDestination,
  type ChildContext,
  type Hosted,
  type RoleHandlers,
} from '@state-divergence/runtime';
import { startConsumer } from './consumer-role.js';

/**
 * Members subscribing at the same time. All 128 of a pool at once, on a loaded 2-core machine, left
 * one member's WELCOME later than its 10 s bound (its handshake and HELLO queued behind 127 others'
 * in the pool and at the broker): a first subscription has no retry, so the run failed. 16 at a
 * time bounds what each waits behind: at a load average of 12, two pools of 128 were subscribed
 * 5.0 s after the run started (all at once, at a load of 3: 4.5 s).
 */
const SUBSCRIBING_AT_ONCE = 16;

/**
 * Each item's `run`, at most `window` at a time, in order; settles like Promise.allSettled, except
 * that once one has failed no new one starts (the pool fails anyway: its members' handshakes
 * would only spend its ready timeout). Items never started are left out of the result.
 */
async function settleInWindows<T, R>(
  items: T[],
  window: number,
  run: (item: T) => Promise<R>,
): Promise<Array<PromiseSettledResult<R>>> {
  const settled: Array<PromiseSettledResult<R>> = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const at = next++;
      settled[at] = await run(items[at]!).then(
        (value): PromiseFulfilledResult<R> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseRejectedResult => {
          failed = true;
          return { status: 'rejected', reason };
        },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, worker));
  return settled;
}

/**
 * Many healthy consumers in one process (issue 21): on 2 cores a process per consumer costs
 * ~9 ms of CPU a second idle and ~72 MiB each, before it applies anything. Each member is built by
 * startConsumer from its own init, exactly as a consumer process of its own: its own QUIC
 * connection, subscription, local copy, counters, digest and logger (its own `proc`). The
 * orchestrator asks each by name (a request's `member`), so nothing downstream can tell a pooled
 * consumer from a lone one. What a pool shares is its fate: if it dies, all its members die with it.
 */
export async function startPool({
  init,
  logger,
  send,
  ending,
}: Omit<ChildContext<PoolInit>, 'exit'>): Promise<RoleHandlers> {
  const destination = logDestination(init.log);
  const ended = new Set<string>();
  const start = (member: ConsumerInit): Promise<Hosted> => {
    const memberLogger = createLogger(member.name, member.log, destination);
    // What a consumer says of itself (its subscription ended early) says which member it is.
    const sendAs = (message: ChildMessage) => {
      if (message.type === 'ended') ended.add(member.name);
      send(message.type === 'ended' ? { ...message, member: member.name } : message);
    };
    return startConsumer({ init: member, logger: memberLogger, send: sendAs, ending }).then((handlers) => ({
      handlers,
      logger: memberLogger,
    }));
  };
  // The pool is ready once every member is subscribed (or one could not be: see below).
  const settled = await settleInWindows(init.members, SUBSCRIBING_AT_ONCE, start);
  const members = new Map<string, Hosted>();
  settled.forEach((s, i) => s?.status === 'fulfilled' && members.set(init.members[i]!.name, s.value));
  const failed = settled.findIndex((s) => s?.status === 'rejected');
  if (failed >= 0) {
    await Promise.all([...members.values()].map((m) => m.handlers.close().catch(() => {})));
    throw new Error(
      `${init.members[failed]!.name} could not start: ` +
        `${errorMessage((settled[failed] as PromiseRejectedResult).reason)}`,
    );
  }
  logger.info({ members: [...members.keys()] }, 'hosting');
  const counters = (): PoolCounters => {
    let applied = 0;
    for (const member of members.values()) {
      const own = member.handlers.counters();
      if (own.role === 'consumer') applied += own.applied;
    }
    return { role: 'pool', members: members.size, ended: ended.size, applied, cpuMicros: cpuMicros() };
  };
  return {
    members,
    counters,
    gather: (): PoolReport => ({ ...counters(), names: [...members.keys()] }),
    // Announced to the pool as a whole (no member named): every member's broker is the one broker.
    brokerLost: () => members.forEach((m) => m.handlers.brokerLost?.()),
    close: async () => {
      await Promise.all([...members.values()].map((m) => m.handlers.close()));
    },
  };
}
