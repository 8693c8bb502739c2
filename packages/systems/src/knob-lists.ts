import { etcdKnobs } from './etcd/knobs.js';
import { natsKvKnobs } from './nats-kv/knobs.js';
import { natsKnobs } from './nats/knobs.js';
import { redisPubsubKnobs } from './redis-pubsub/knobs.js';
import { redisStreamsKnobs } from './redis-streams/knobs.js';
import type { SystemKnobs } from './target-system.js';

/**
 * Every system's name and knobs, in SYSTEMS' order, without loading a client (the package's
 * `./knobs` export): the orchestrator makes a flag of each knob at every start, our broker's runs
 * included, and the clients take half a second to load. Each entry is the very value its
 * TargetSystem spreads, so the two cannot disagree.
 */
export const SYSTEM_KNOBS: readonly SystemKnobs[] = [
  etcdKnobs,
  natsKnobs,
  natsKvKnobs,
  redisPubsubKnobs,
  redisStreamsKnobs,
];

export type { Knob, KnobValues, SystemKnobs } from './target-system.js';
