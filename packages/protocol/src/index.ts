// The wire (wire/): the byte-level codec between QUIC peers, as docs/PROTOCOL.md describes it.
export * from './wire/constants.js';
export type * from './wire/frames.js';
export * from './wire/encode.js';
export { FrameDecoder, FrameDecodeError } from './wire/decoder.js';
export { publishBodyVersion } from './wire/parse-body.js';
export { digestMix, DIGEST_SEED_HIGH, DIGEST_SEED_LOW, StateDigest } from './wire/digest.js';
export { publishRefusal, type PublishLimits, type Refusal } from './wire/publish-rules.js';

// IPC (ipc/): what the orchestrator and its children say to each other, and how it is checked on arrival.
export * from './ipc/messages.js';
export type * from './ipc/reports.js';
export {
  childMessageProblem,
  initProblem,
  isChildInit,
  isChildMessage,
  isOrchestratorCommand,
  isRequestKind,
} from './ipc/guards.js';
export { isGuardianCommand, type GuardianCommand, type GuardianMessage } from './ipc/guardian.js';
export {
  readForeignMessage,
  readForeignCounters,
  readForeignReport,
  type ForeignRead,
} from './ipc/foreign-contract.js';

// The run's vocabulary, read by both: key names, what each mode does, a fault relay's link.
export * from './keyspace.js';
export * from './modes.js';
export * from './link-shape.js';

// Every numeric setting of a run, declared once (its flag, default, bounds; the inits that carry it).
export * from './settings.js';
