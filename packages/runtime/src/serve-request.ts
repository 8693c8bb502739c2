import type {
  ChildMessage,
  Counters,
  DigestVerdict,
  LastWrites,
  LinkShape,
  OrchestratorCommand,
  Report,
} from '@state-divergence/protocol';
import { errorMessage } from './error-message.js';
import type { Logger } from './logger.js';
import { processResources } from './resources.js';

/** What a role implements: the lifecycle around it is the same for every child (child.ts), and every request is served
 * through it (below). */
export interface RoleHandlers {
  /** Sent in `ready` (the broker's listening port). */
  port?: number;
  counters(): Counters;
  gather(): Report;
  start?(durationMs: number): void;
  /** Consumers: compare the local digest with the broker's. */
  digest?(): Promise<DigestVerdict>;
  /** Publisher and consumers: live version per key (0: absent or deleted). */
  versions?(): Float64Array;
  /** Broker: each key's last-write offset and each subscriber's drops, for the live view (it must stay cheap: see
   * LastWrites). */
  lastWrites?(): LastWrites;
  /** Broker: a subscriber's process is gone. */
  endSubscriber?(name: string, reason: string): void;
  /** Publisher and consumers: the broker was killed (see the `brokerLost` command). */
  brokerLost?(): void;
  /** Relay: shape each direction of its link from now on (see LinkShape). */
  shape?(up: LinkShape, down: LinkShape): void;
  /** A TCP relay: reset every connection it carries (see the `reset` command). */
  reset?(): void;
  /**
   * A pool: the consumers it hosts, by name. A request or `brokerLost` naming one (`member`) is that
   * one's; each reports its own counters once a second, as a process of its own would.
   */
  members?: ReadonlyMap<string, Hosted>;
  /** Releases transports. Must not wait for a graceful QUIC close. */
  close(): Promise<void>;
}

/** One role hosted in a process with others (a pool's member): its handlers and its own logger (its own `proc`). */
export interface Hosted {
  handlers: RoleHandlers;
  logger: Logger;
}

type Request = Extract<OrchestratorCommand, { type: 'request' }>;

/**
 * Answers one request with exactly one message: its `reply`, or `refused` when
 * this role cannot serve it. A child asked for something it does not do answers;
 * it never dies of it.
 */
export function serveRequest(
  role: RoleHandlers,
  request: Request,
  send: (message: ChildMessage) => void,
  logger: Logger,
): void {
  const { id, kind } = request;
  const refuse = (message: string) => {
    logger.warn({ kind, message }, 'request refused');
    send({ type: 'refused', id, kind, message });
  };
  switch (kind) {
    case 'status':
      return send({ type: 'reply', id, kind, value: role.counters() });
    case 'gather':
      return send({ type: 'reply', id, kind, value: { report: role.gather(), resources: processResources() } });
    case 'versions':
      if (!role.versions) return refuse('this role keeps no key versions');
      return send({ type: 'reply', id, kind, value: role.versions() });
    case 'lastWrites':
      if (!role.lastWrites) return refuse('only the broker keeps the compacted table and the drop ranges');
      return send({ type: 'reply', id, kind, value: role.lastWrites() });
    case 'digest':
      if (!role.digest) return refuse('this role keeps no local copy to digest');
      // Not awaited: the digest needs frames from the broker, and commands must keep flowing.
      // A failed check is a finding about this consumer, not a reason for it to die.
      role.digest().then(
        (value) => send({ type: 'reply', id, kind, value }),
        (error: unknown) =>
          send({
            type: 'reply',
            id,
            kind,
            value: { match: null, error: errorMessage(error), local: '', broker: '', brokerOffset: 0, localOffset: 0 },
          }),
      );
      return;
    default:
      return refuse(`unknown request kind ${String(kind satisfies never)}`);
  }
}
