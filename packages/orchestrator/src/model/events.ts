import type { Fault } from './faults.js';

/** The phases of a run, in order; the plan (run/plan.ts) says when each begins. */
export type PhaseName = 'converged' | 'stalled' | 'recovering' | 'quiesced';

/**
 * When publishing started (time 0 of the plan, the faults, the charts and the
 * timeline) on each clock a run's times are on: `runMs` on the orchestrator's
 * run clock (RunEvent.at: ms since the mode started, monotonic), `wallMs` on the
 * wall clock (Date.now: what the children stamp, e.g. the broker's subscriber
 * marks and blocked writes, a consumer's syncs). One host, so one wall clock.
 */
export interface PublishingOrigin {
  runMs: number;
  wallMs: number;
}

/** One thing that happened during a run, on the orchestrator's monotonic clock (ms since the mode started). */
export type RunEvent =
  | { at: number; type: 'spawned'; name: string; pid: number }
  | { at: number; type: 'phase'; phase: PhaseName }
  | { at: number; type: 'crash' | 'restart' | 'joined'; consumer: string; pid: number }
  /**
   * A stall's start and end, `at` when /proc showed it done (every process of the consumer's group
   * in state T; none): `waitedMs` after the SIGSTOP or SIGCONT was sent (run/nemesis.ts), so `at`
   * less `waitedMs` is a moment before the signal took effect.
   */
  | { at: number; type: 'freeze' | 'thaw'; consumer: string; pid: number; waitedMs: number }
  | { at: number; type: 'slow'; consumer: string; pid: number; percent: number }
  /** A slow's end: of its `periods` (each a SIGSTOP), `stoppedPeriods` were seen stopped when their SIGCONT was due. */
  | { at: number; type: 'unslow'; consumer: string; pid: number; periods: number; stoppedPeriods: number }
  /**
   * The broker's outage (--crash broker@FROM-TO): SIGKILLed (`pid`, the process that died), and back
   * once its successor (`pid`) is listening on the same port; `restarts` counts them in this run.
   */
  | { at: number; type: 'broker-crash'; pid: number }
  | { at: number; type: 'broker-restart'; pid: number; restarts: number }
  /**
   * A network fault's link shaped by its relay (`fault`: the --partition, --loss or --delay entry), and
   * cleared again. `consumer` is the client whose link it is, as in Fault: a consumer or `publisher`.
   */
  | { at: number; type: 'net-fault'; consumer: string; fault: Fault }
  | { at: number; type: 'net-heal'; consumer: string }
  | { at: number; type: 'publisher-done'; published: number }
  | { at: number; type: 'drained'; ms: number; complete: boolean }
  | { at: number; type: 'consumer-ended'; consumer: string; reason: string };
