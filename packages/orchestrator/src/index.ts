/** The orchestrator as a library, for the benchmarks: the same pieces the CLI uses. */
export { spawnRole, type ChildHandle } from './child-process.js';
export { generateRunCertificate } from './tls.js';
export { runMode, type ModeResult, type RunObserver, type ChildRegistry } from './run-mode.js';
export { normalizeOptions, consumerName, type Options, type RawOptions } from './options.js';
export { silentProgress } from './progress.js';
export { summarizeLatency, type LatencySummary } from './latency.js';
export { BATCH_MAX_EVENTS, HEARTBEAT_MS, STREAM_WINDOW_BYTES } from './transport-settings.js';
export { brokerInit, consumerInit, publisherInit, HOST } from './child-inits.js';
