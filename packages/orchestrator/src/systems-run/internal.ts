/**
 * The parts of a real system's run its unit tests call directly (the package's
 * `./systems-internal` export, for tests alone, as `./internal`): apart from `./internal` because
 * they load the systems' clients, which every other test importing `./internal` would pay for.
 */
export { evidenceOf, judgeConsumer, latestWrites } from './judge.js';
export { pollProgress } from './progress-poll.js';
export { renderSystemHtml } from './system-html.js';
export { systemLiveLines, type SystemLiveState } from './system-live.js';
export type { SystemRunDocument } from './system-document.js';
export type { ConsumerProgress, SystemRunObserver, SystemSnapshot } from './system-progress.js';
export { workload } from './workload.js';
export { parseEndpoint } from './endpoint.js';
export { readCredentials } from './credentials-source.js';
export { redactRun } from './redact-run.js';
export { heldWhere } from './system-text.js';
export { healthyLatency } from './healthy-latency.js';
export { parseSystemRun } from './system-options.js';
export { judgedAuthority } from './restart-authority.js';
export { networkWords } from './network-judge.js';
export { parseResets } from './network-faults.js';
export { appliedInLastSecond, drain, drainedState, drainEnd, drainRule, lastChangeMs } from './drain.js';
export { renderSystemRun } from './system-text.js';
