import type { SystemRun } from './system-document.js';

/**
 * What a run against a real system tells whoever watches it (the live view, system-live.ts) while
 * it goes: run-system.ts calls these; nothing here reaches into the run.
 */
export interface SystemRunObserver {
  /** The probes are consuming and publishing starts now. */
  started(plan: SystemRunPlan): void;
  /** A stalled consumer was frozen (SIGSTOP) or thawed, `seconds` since publishing started. */
  stall(consumer: string, frozen: boolean, seconds: number): void;
  /** Where the run is: every half second while publishing, then at each poll of the drain. */
  snapshot(snapshot: SystemSnapshot): void;
  /** The run is judged: its result, as the document carries it. */
  done(run: SystemRun): void;
}

export interface SystemRunPlan {
  system: string;
  idiom: string;
  consumers: string[];
  /** The stall windows, seconds since publishing started. */
  stalls: { consumer: string; from: number; to: number }[];
  /** When publishing ends, seconds since it started. */
  publishEndsAt: number;
}

/** A consumer now: consuming, frozen by a stall, or done (its copy equals the authority, or the run ended). */
export type ProbeState = 'running' | 'frozen' | 'done';

export interface ConsumerProgress {
  name: string;
  state: ProbeState;
  /** Changes it applied, as of its last report (a frozen probe answers nothing: it keeps the count it had). */
  applied: number;
  relists: number;
  /** Signals it had by its last report, and the kind of the latest. */
  signals: number;
  lastSignal: string | null;
  /** Keys its copy has wrong against the authority, once the drain compares them; null before. */
  wrongNow: number | null;
}

export interface SystemSnapshot {
  /** Seconds since publishing started. */
  seconds: number;
  stage: 'publishing' | 'waiting for the thaw' | 'draining';
  /** Writes the system acknowledged so far. */
  acknowledged: number;
  /** Of them, per second over the last RATE_WINDOW_MS. */
  ratePerSec: number;
  consumers: ConsumerProgress[];
}
