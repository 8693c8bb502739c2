import type { ChildMessage, OrchestratorCommand } from '@state-divergence/protocol';
import { errorMessage } from './error-message.js';
import type { Logger } from './logger.js';
import { processResources } from './resources.js';
import type { RoleHandlers } from './child.js';

type Request = Extract<OrchestratorCommand, { type: 'request' }>;

/**
 * Answers one request with exactly one message: its `reply`, or `refused` when
 * this role cannot serve it. A child asked for something it does not do answers;
 * it never dies of it.
 */
export function serveRequest(role: RoleHandlers, request: Request, send: (message: ChildMessage) => void, logger: Logger): void {
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
        (error: unknown) => send({ type: 'reply', id, kind, value: { match: null, error: errorMessage(error), local: '', broker: '', brokerOffset: 0, localOffset: 0 } }),
      );
      return;
    default:
      return refuse(`unknown request kind ${String(kind satisfies never)}`);
  }
}
