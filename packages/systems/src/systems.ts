import { etcd } from './etcd/index.js';
import { natsKv } from './nats-kv/index.js';
import { nats } from './nats/index.js';
import { redisPubsub } from './redis-pubsub/index.js';
import { redisStreams } from './redis-streams/index.js';
import type { TargetSystem } from './target-system.js';

/** Every system the harness can target: the one place their names appear together. */
export const SYSTEMS: readonly TargetSystem[] = [etcd, nats, natsKv, redisPubsub, redisStreams];

/** The system named `name`, or a one-line refusal listing the names there are. */
export function systemNamed(name: string): TargetSystem {
  const found = SYSTEMS.find((system) => system.name === name);
  if (found === undefined) throw new Error(`no system ${name} (there are: ${SYSTEMS.map((s) => s.name).join(', ')})`);
  return found;
}
