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
export const PROCESS_FAULT_KINDS = ['stall', 'slow', 'crash'] as const;
/**
 * Faults of the link between a client and the broker, staged by a fault relay (packages/relay):
 * - partition: every datagram dropped, both ways;
 * - loss: `lossPct` % dropped each way, each datagram sharing the last one's fate with probability `correlationPct` %;
 * - delay: each datagram held `delayMs` ± `jitterMs`, each way;
 * - bandwidth: at most `rateBytesPerSec` bytes a second each way, the rest queued (a bottleneck).
 */
export const NETWORK_FAULT_KINDS = ['partition', 'loss', 'delay', 'bandwidth'] as const;
export const FAULT_KINDS = [...PROCESS_FAULT_KINDS, ...NETWORK_FAULT_KINDS] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type NetworkFaultKind = (typeof NETWORK_FAULT_KINDS)[number];

/** The one process other than a consumer that a fault can hit (`--crash broker@FROM-TO`). */
export const BROKER = 'broker';
/** The client other than a consumer whose link a network fault can hit (`--partition publisher@FROM-TO`). */
export const PUBLISHER = 'publisher';

export interface Fault {
  kind: FaultKind;
  /** The faulted process (or, for a network fault, whose link): a consumer's name, BROKER (a crash only) or PUBLISHER
   * (a network fault only). */
  consumer: string;
  from: number;
  to: number;
  /** slow only: the share of each 100 ms the consumer is stopped. */
  percent?: number;
  /** loss only: the share of datagrams dropped each way, and the chance each datagram shares the previous one's fate
   * (else dropped with lossPct: the rate stays lossPct; relay/link-shaper.ts). */
  lossPct?: number;
  correlationPct?: number;
  /** delay only: how long each datagram is held each way, ± jitter. */
  delayMs?: number;
  jitterMs?: number;
  /** bandwidth only: the cap, bytes a second each way. */
  rateBytesPerSec?: number;
}

export const isBrokerFault = (f: Fault): boolean => f.consumer === BROKER;
export const isNetworkKind = (kind: FaultKind): kind is NetworkFaultKind =>
  (NETWORK_FAULT_KINDS as readonly string[]).includes(kind);
export const isNetworkFault = (f: Fault): boolean => isNetworkKind(f.kind);
/** The publisher's network faults among a run's (`config.faults`: the document's consumers carry only their own). */
export const publisherFaults = (faults: Fault[]): Fault[] =>
  faults.filter((f) => f.consumer === PUBLISHER && isNetworkFault(f));

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

/** A value and its ± part as the flags write them: `20`, `20~75`. */
const withSpread = (value: number | undefined, spread: number | undefined): string =>
  `${value ?? 0}${spread ? `~${spread}` : ''}`;

/** A cap as its flag writes it, in the largest unit that keeps it whole: `20KB`, `1MB`, `1500B` (1 KB = 1000 B). */
export function rateEntry(bytesPerSec: number): string {
  if (bytesPerSec % 1_000_000 === 0) return `${bytesPerSec / 1_000_000}MB`;
  if (bytesPerSec % 1_000 === 0) return `${bytesPerSec / 1_000}KB`;
  return `${bytesPerSec}B`;
}

/** A rate in words: "20 KB/s", "1.5 MB/s", "800 B/s". */
export function rateText(bytesPerSec: number): string {
  if (bytesPerSec >= 1_000_000) return `${Math.round(bytesPerSec / 10_000) / 100} MB/s`;
  if (bytesPerSec >= 1_000) return `${Math.round(bytesPerSec / 10) / 100} KB/s`;
  return `${bytesPerSec} B/s`;
}

/** What follows a fault's window in its flag: `:50` (slow), `:20~75` (loss), `:50~10` (delay), `:20KB` (bandwidth). */
function flagParameter(f: Fault): string {
  if (f.kind === 'slow') return `:${f.percent ?? DEFAULT_SLOW_PERCENT}`;
  if (f.kind === 'loss') return `:${withSpread(f.lossPct, f.correlationPct)}`;
  if (f.kind === 'delay') return `:${withSpread(f.delayMs, f.jitterMs)}`;
  if (f.kind === 'bandwidth') return `:${rateEntry(f.rateBytesPerSec ?? 0)}`;
  return '';
}

/**
 * A loss of 0 %: the network experiment's baseline, its link through a relay that drops nothing.
 * No flag asks for it (--loss takes 1-100), so it is never written as one.
 */
const noLoss = (f: Fault): boolean => f.kind === 'loss' && (f.lossPct ?? 0) === 0;

/** What a fault's flag takes, the flag's name left off: `consumer-2@4-12:50` (for --slow), `broker@2-4` (for --crash).
 * */
export const faultEntry = (f: Fault): string => `${f.consumer}@${seconds(f.from)}-${seconds(f.to)}${flagParameter(f)}`;

/** A fault as the flag that asks for it: `--slow consumer-2@4-12:50`, `--loss consumer-2@0-4:20~75` (the baseline:
 * `consumer-3@0.5-2.5 through a relay, no loss`). */
export function describeFault(f: Fault): string {
  return noLoss(f)
    ? `${f.consumer}@${seconds(f.from)}-${seconds(f.to)} through a relay, no loss`
    : `--${f.kind} ${faultEntry(f)}`;
}

const PAST: Record<FaultKind, string> = {
  stall: 'stalled',
  slow: 'slowed',
  crash: 'crashed and restarted',
  partition: 'partitioned',
  loss: 'lossy link',
  delay: 'delayed link',
  bandwidth: 'capped link',
};

/** The words after a fault's window in a report: " (50 %)", " (20 % lost, 75 % correlated)", " (50 ± 10 ms)". */
function windowParameter(f: Fault): string {
  if (f.kind === 'slow') return ` (${f.percent ?? DEFAULT_SLOW_PERCENT} %)`;
  if (f.kind === 'loss')
    return ` (${f.lossPct ?? 0} % lost${f.correlationPct ? `, ${f.correlationPct} % correlated` : ''})`;
  if (f.kind === 'delay') return ` (${f.delayMs ?? 0}${f.jitterMs ? ` ± ${f.jitterMs}` : ''} ms)`;
  if (f.kind === 'bandwidth') return ` (${rateText(f.rateBytesPerSec ?? 0)})`;
  return '';
}

/**
 * A fault as a report marks its consumer: "stalled" for the seed's window
 * ([d, 3d), what plain `--stall NAME` asks for), otherwise with its window:
 * "slowed 4-12 s (50 %)".
 */
export function faultLabel(f: Fault, duration: number): string {
  const seedWindow = f.kind === 'stall' && f.from === duration && f.to === 3 * duration;
  return seedWindow ? PAST[f.kind] : faultWindow(f);
}

/** A fault with its window, always: "slowed 4-12 s (50 %)", "lossy link 0-4 s (20 % lost)". */
export const faultWindow = (f: Fault): string =>
  noLoss(f)
    ? `through a relay ${seconds(f.from)}-${seconds(f.to)} s, no loss`
    : `${PAST[f.kind]} ${seconds(f.from)}-${seconds(f.to)} s${windowParameter(f)}`;

/** Every fault of a run with its consumer and window, as the live view's footer and the report's legend say them. */
export const faultWindows = (faults: Fault[]): string =>
  faults.map((f) => `${f.consumer} ${faultWindow(f)}`).join(', ');
