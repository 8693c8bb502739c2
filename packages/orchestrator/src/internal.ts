/**
 * The orchestrator's parts its unit tests call directly (the package's `./internal` export): the
 * checker's and the plan's pure functions, the nemesis, the command splitter. Nothing but tests
 * imports this; the bench and the CLI use `.`. The live view is `./tui`, apart, so that only a
 * test of it loads ink and react.
 */
export { check, checkSafely, mergeVerdicts, NO_BROKER_REPORT, type CheckInput } from './check/checker.js';
export { assembleOutcome } from './check/outcome.js';
export type { GatheredRun } from './model/run-types.js';
export { sweepPoint } from './experiments/sweep-point.js';
export { completedExit, judge } from './cli/exit-code.js';
export { readCommandLine, type CommandLine, type Invocation } from './cli/command-line.js';
export { runSession, TEARDOWN_DEADLINE_MS } from './cli/session.js';
export { DOCUMENT_VERSION, toJsonConfig, toJsonRun } from './report/document.js';
export { renderHtml } from './report/render-html.js';
export { renderClosing, renderMode } from './report/render-text.js';
export { MODE_LABELS, MODE_SHORT } from './report/labels.js';
export { textProgress } from './report/progress.js';
export { CROWD } from './report/crowd.js';
export { LIVE_ROWS } from './report/live-fold.js';
export { overlaps, wrongByDecile } from './check/damage.js';
export { expectedWrong, mergeRanges } from './check/expectation.js';
export {
  churnPeak,
  networkPoint,
  restartPoint,
  type NetworkPoint,
  type RestartPoint,
} from './experiments/experiment-points.js';
export { experimentsDocument } from './experiments/experiments-document.js';
export { DESIGN, designExperiments } from './experiments/experiments-design.js';
export { renderExperimentsHtml } from './experiments/experiments-html.js';
export {
  bisectStall,
  edgeFigures,
  gridBracket,
  missedRanges as systemsMissedRanges,
  withinQuarter,
  type SystemsEdge,
  type SystemsPoint,
} from './experiments/systems-points.js';
export { renderSystemsSection } from './experiments/systems-text.js';
export { SYSTEMS_DESIGN } from './experiments/systems-design.js';
export { countersEvidence, liveDivergence, publisherBacklog } from './check/live-divergence.js';
export { goneConsumer, missedKeys, missedRanges, noBrokerEntry } from './check/missed.js';
export { absorbedInStalls } from './check/transport.js';
export type { StallBytes } from './model/check-types.js';
export { relayOutcome, stalenessOf } from './check/network.js';
export {
  buildPlan,
  checkPlan,
  faultedConsumers,
  longestStallMs,
  networkFaulted,
  planLengthMs,
  stallWindows,
  type PlanStep,
  type RunPlan,
} from './run/plan.js';
export { interpretPlan, type StepHandlers } from './run/interpret-plan.js';
export { Nemesis } from './run/nemesis.js';
export { PlanSteps } from './run/steps.js';
export { EventLog } from './run/event-log.js';
export { watchCluster } from './run/watch.js';
export { describeFault, faultWindow } from './model/faults.js';
export { linkShapeOf } from './model/link-shape-of.js';
export { splitCommand } from './cli/split-command.js';
export { ChildChannel } from './run/child/channel.js';
export { RoleProcess } from './run/child/role-process.js';
export { confirmGroup } from './run/child/confirm-state.js';
export { parseStat } from './run/child/proc-stat.js';
export { PoolMember } from './run/child/pool-member.js';
export { defaultPoolSize, planPools, poolGroups } from './run/pools.js';
export { holdLog } from './cli/held-log.js';
export { fitWidth } from './report/fit-width.js';
export { costTableText } from './report/cost-table.js';
