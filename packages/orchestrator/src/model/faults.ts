/**
 * The faults a run can stage (the nemesis as data). Times are seconds since
 * publishing started (the start of `converged`).
 *
 * - stall: SIGSTOP at `from`, SIGCONT at `to` (the seed's fault);
 * - slow: stopped `percent` % of every 100 ms between `from` and `to`, like a
 *   container throttled by its CPU quota: it falls behind without ever being frozen;
 * - crash: SIGKILL at `from`; at `to` a fresh process of the same name subscribes
 *   the way its mode does (latest, or a snapshot under resync). `--crash broker@FROM-TO`
 *   crashes the broker instead: a new broker starts at `to` on the same port, and the
 *   publisher and our consumers reconnect to it (run/steps.ts).
 */
export const FAULT_KINDS = ['stall', 'slow', 'crash'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The one process other than a consumer that a fault can hit (`--crash broker@FROM-TO`). */
export const BROKER = 'broker';

export interface Fault {
  kind: FaultKind;
  /** The faulted process: a consumer's name, or BROKER (a crash only). */
  consumer: string;
  from: number;
  to: number;
  /** slow only: the share of each 100 ms the consumer is stopped. */
  percent?: number;
}

export const isBrokerFault = (f: Fault): boolean => f.consumer === BROKER;

/**
 * When publishing ends, seconds since it started: `--publish-until`, or by default when the last
 * fault ends (the seed's rule: a stalled consumer gets nothing published after its thaw). A broker
 * restart is only worth watching if changes follow it (the clients must reconnect, the publisher
 * publish to the new broker): by default publishing goes on one phase after the broker is back.
 */
export function publishingEnds(options: { duration: number; faults: Fault[]; publishUntil: number | null }): number {
  if (options.publishUntil !== null) return options.publishUntil;
  const restarts = options.faults.filter(isBrokerFault).map((f) => f.to + options.duration);
  return Math.max(...options.faults.map((f) => f.to), ...restarts);
}

/** A slowed consumer is stopped this share of every period unless told otherwise. */
export const DEFAULT_SLOW_PERCENT = 50;
export const SLOW_PERIOD_MS = 100;

const seconds = (value: number): string => String(Math.round(value * 1000) / 1000);

/** A fault as the flag that asks for it: `--slow consumer-2@4-12:50`. */
export const describeFault = (f: Fault): string =>
  `--${f.kind} ${f.consumer}@${seconds(f.from)}-${seconds(f.to)}${f.kind === 'slow' ? `:${f.percent ?? DEFAULT_SLOW_PERCENT}` : ''}`;

const PAST: Record<FaultKind, string> = { stall: 'stalled', slow: 'slowed', crash: 'crashed and restarted' };

/**
 * A fault as a report marks its consumer: "stalled" for the seed's window
 * ([d, 3d), what plain `--stall NAME` asks for), otherwise with its window:
 * "slowed 4-12 s (50 %)".
 */
export function faultLabel(f: Fault, duration: number): string {
  const seedWindow = f.kind === 'stall' && f.from === duration && f.to === 3 * duration;
  return seedWindow ? PAST[f.kind] : faultWindow(f);
}

/** A fault with its window, always: "slowed 4-12 s (50 %)". */
export const faultWindow = (f: Fault): string =>
  `${PAST[f.kind]} ${seconds(f.from)}-${seconds(f.to)} s${f.kind === 'slow' ? ` (${f.percent ?? DEFAULT_SLOW_PERCENT} %)` : ''}`;

/** Every fault of a run with its consumer and window, as the live view's footer and the report's legend say them. */
export const faultWindows = (faults: Fault[]): string => faults.map((f) => `${f.consumer} ${faultWindow(f)}`).join(', ');
