import type { ChildMessage, ConsumerInit, PoolCounters, PoolInit, PoolReport } from '@state-divergence/protocol';
import { createLogger, errorMessage, logDestination, type ChildContext, type Hosted, type RoleHandlers } from '@state-divergence/runtime';
import { startConsumer } from './consumer-role.js';

/**
 * Many healthy consumers in one process (issue 21): on 2 cores a process per consumer costs
 * ~9 ms of CPU a second idle and ~72 MiB each, before it applies anything. Each member is built by
 * startConsumer from its own init, exactly as a consumer process of its own: its own QUIC
 * connection, subscription, local copy, counters, digest and logger (its own `proc`). The
 * orchestrator asks each by name (a request's `member`), so nothing downstream can tell a pooled
 * consumer from a lone one. What a pool shares is its fate: if it dies, all its members die with it.
 */
export async function startPool({ init, logger, send, ending }: Omit<ChildContext<PoolInit>, 'exit'>): Promise<RoleHandlers> {
  const destination = logDestination(init.log);
  const ended = new Set<string>();
  const start = (member: ConsumerInit): Promise<Hosted> => {
    const memberLogger = createLogger(member.name, member.log, destination);
    // What a consumer says of itself (its subscription ended early) says which member it is.
    const sendAs = (message: ChildMessage) => {
      if (message.type === 'ended') ended.add(member.name);
      send(message.type === 'ended' ? { ...message, member: member.name } : message);
    };
    return startConsumer({ init: member, logger: memberLogger, send: sendAs, ending }).then((handlers) => ({ handlers, logger: memberLogger }));
  };
  // All subscribe at once (each handshake is CPU the others' do not wait for); the pool is ready once every one is.
  const settled = await Promise.allSettled(init.members.map(start));
  const members = new Map<string, Hosted>();
  settled.forEach((s, i) => s.status === 'fulfilled' && members.set(init.members[i]!.name, s.value));
  const failed = settled.findIndex((s) => s.status === 'rejected');
  if (failed >= 0) {
    await Promise.all([...members.values()].map((m) => m.handlers.close().catch(() => {})));
    throw new Error(`${init.members[failed]!.name} could not start: ${errorMessage((settled[failed] as PromiseRejectedResult).reason)}`);
  }
  logger.info({ members: [...members.keys()] }, 'hosting');
  const counters = (): PoolCounters => ({ role: 'pool', members: members.size, ended: ended.size });
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
