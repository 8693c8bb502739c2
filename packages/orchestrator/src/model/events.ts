/** The phases of a run, in order; the plan (run/plan.ts) says when each begins. */
export type PhaseName = 'converged' | 'stalled' | 'recovering' | 'quiesced';

/** One thing that happened during a run, on the orchestrator's monotonic clock (ms since the mode started). */
export type RunEvent =
  | { at: number; type: 'spawned'; name: string; pid: number }
  | { at: number; type: 'phase'; phase: PhaseName }
  | { at: number; type: 'freeze' | 'thaw' | 'unslow' | 'crash' | 'restart' | 'joined'; consumer: string; pid: number }
  | { at: number; type: 'slow'; consumer: string; pid: number; percent: number }
  | { at: number; type: 'publisher-done'; published: number }
  | { at: number; type: 'drained'; ms: number; complete: boolean }
  | { at: number; type: 'consumer-ended'; consumer: string; reason: string };
