export * from './constants.js';
export type * from './frames.js';
export * from './encode.js';
export { FrameDecoder, FrameDecodeError } from './decoder.js';
export * from './ipc.js';
export * from './keyspace.js';
export { digestMix, DIGEST_SEED_HIGH, DIGEST_SEED_LOW, StateDigest } from './digest.js';
export { publishRefusal, type PublishLimits, type Refusal } from './publish-rules.js';
export { isChildInit, isChildMessage, isOrchestratorCommand, isRequestKind } from './ipc-guards.js';
