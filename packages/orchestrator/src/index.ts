/** The orchestrator as a library, for the benchmarks and the tests: the same pieces the CLI uses. */
export { spawnRole } from './run/child/spawn-role.js';
export type { ChildHandle, ChildRegistry } from './run/child/child-handle.js';
export { startCluster, type Cluster, type ClusterSpec } from './run/cluster.js';
export { brokerEndpoint, brokerInit, consumerInit, publisherInit, relayInit, throughRelay } from './run/child-inits.js';
export {
  brokerFeatures,
  consumerFeatures,
  type BrokerFeatures,
  type ConsumerFeatures,
} from './run/mode-features.js';
export { runMode, type RunContext } from './run/run-mode.js';
export { buildPlan, faultedConsumers } from './run/plan.js';
export { checkDataDir, openRunData, type RunData } from './run/data-dir.js';
export type { ConsumerOutcome, ModeResult } from './model/run-types.js';
export type { LiveSnapshot, RunObserver } from './model/live.js';
export { normalizeOptions } from './cli/normalize-options.js';
export { DEFAULTS, type Options, type RawOptions } from './model/options.js';
export type { Fault } from './model/faults.js';
export { UsageError } from './model/errors.js';
export { silentProgress } from './report/progress.js';
export { summarizeLatency } from './check/latency.js';
export type { LatencySummary } from './model/check-types.js';
export { BATCH_MAX_EVENTS, HEARTBEAT_MS, STREAM_WINDOW_BYTES } from '@state-divergence/protocol';
export { generateRunCertificate } from './run/tls.js';
export type { JsonBroker, JsonConfig, JsonConsumer, JsonDocument, JsonRun } from './report/json-document.js';
export { renderExperiments } from './experiments/experiments-text.js';
export type { ExperimentsDocument } from './experiments/experiments-document.js';
export { renderFlagReference } from './cli/flag-reference.js';
