export type {
  EdgeFigures,
  EdgePrediction,
  Endpoint,
  Idiom,
  IdiomName,
  Knob,
  KnobValues,
  ServerCounters,
  RemoteRecipe,
  ServerRecipe,
  Signal,
  SignalKind,
  Sink,
  StartedConsumer,
  SystemKnobs,
  TargetSystem,
  Versioned,
  Writer,
} from './target-system.js';
export { IDIOM_NAMES } from './target-system.js';
export { credentialKinds, redact, type CredentialKind, type Credentials } from './credentials.js';
export { SYSTEMS, systemNamed } from './systems.js';
export { installed } from './installed.js';
export { knobValues } from './knobs.js';
export { checkPrefix, runPrefix } from './prefix.js';
export { startServer, type RunningServer, type ServerOptions, type ServerWatch } from './server-process.js';
export { kernelQueues, type KernelQueues } from './kernel-queues.js';
export { LocalCopy, wrongKeys } from './local-copy.js';
export { Authority } from './authority.js';
export { startProbe, type Probe, type ProbeReport } from './probe-handle.js';
