import { UsageError } from '../model/errors.js';
import {
  MAX_LINK_DELAY_MS,
  MAX_LINK_RATE,
  MAX_RUN_SECONDS as MAX_SECONDS,
  MIN_LINK_RATE,
} from '@state-divergence/protocol';
import { longestSurvivableCutMs } from '@state-divergence/runtime';
import {
  BROKER,
  DEFAULT_SLOW_PERCENT,
  describeFault,
  isBrokerFault,
  isNetworkKind,
  PUBLISHER,
  publishingEnds,
  rateEntry,
  type Fault,
  type FaultKind,
} from '../model/faults.js';

/** NAME, NAME@FROM-TO, then for --slow :PCT, for --loss :PCT[~CORR], for --delay :MS[~JITTER] (also after a plain
 * NAME). */
const FAULT = /^([^@:\s]+)(?:@(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?))?(?::(\d+)(?:~(\d+))?)?$/;
/** --bandwidth: the same NAME and window, then :RATE, a number and its unit (B, KB, MB a second). */
const BANDWIDTH = /^([^@:\s]+)(?:@(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?))?(?::(\d+(?:\.\d+)?(?:B|KB|MB)))?$/;
/**
 * A cap's unit. Bytes, not bits: the relay's counters, the reports and a change's size are all in
 * bytes, so a cap reads beside them with no factor of 8. Decimal (1 KB = 1000 B), as link speeds are.
 */
const RATE_UNITS: Record<string, number> = { B: 1, KB: 1_000, MB: 1_000_000 };
const RATE_USAGE =
  `, then :RATE, bytes a second each way with its unit: 800B, 20KB, 1.5MB (1 KB = 1000 B; ` +
  `${rateEntry(MIN_LINK_RATE)} to ${rateEntry(MAX_LINK_RATE)})`;

const fmt = (seconds: number): string => String(Math.round(seconds * 1000) / 1000);

/** What follows the window in each kind's flag, and whether it must be there. */
const PARAMETER: Partial<Record<FaultKind, { usage: string; required: boolean; spread: boolean }>> = {
  slow: { usage: ', then :PCT for the share of each 100 ms it is stopped', required: false, spread: false },
  loss: {
    usage:
      ', then :PCT (1-100) of datagrams dropped each way, optionally ~CORR (0-99), the % chance each datagram ' +
      "shares the last one's fate",
    required: true,
    spread: true,
  },
  delay: {
    usage: ', then :MS (1-10000) each datagram is held each way, optionally ~JITTER (0-MS)',
    required: true,
    spread: true,
  },
  bandwidth: { usage: RATE_USAGE, required: true, spread: false },
};

/**
 * Parses one fault flag's entries (repeatable, comma-separated). A plain NAME
 * keeps the seed's window [d, 3d): frozen for two phases after one converged.
 * A network fault's NAME may also be the publisher (its link to the broker).
 */
export function parseFaults(
  kind: FaultKind,
  entries: ReadonlyArray<string | number>,
  context: { duration: number; consumers: string[] },
): Fault[] {
  const texts = entries
    .flatMap((entry) => String(entry).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const network = isNetworkKind(kind);
  return texts.map((text) => {
    const match = (kind === 'bandwidth' ? BANDWIDTH : FAULT).exec(text);
    const parameter = PARAMETER[kind];
    const usage = `NAME or NAME@FROM-TO (seconds since publishing started${parameter?.usage ?? ''})`;
    if (match === null) throw new UsageError(`--${kind} takes ${usage}, got ${text}`);
    const [, consumer = '', from, to, value, spread] = match;
    if (consumer === BROKER) return brokerCrash(kind, text, from, to);
    const targets = network ? [...context.consumers, PUBLISHER] : context.consumers;
    if (!targets.includes(consumer))
      throw new UsageError(
        `--${kind} ${consumer} is not a ${network ? 'client' : 'consumer'} of this run; valid: ${targets.join(', ')}`,
      );
    if (value !== undefined && parameter === undefined)
      throw new UsageError(`--${kind} takes no :PCT (only --slow, --loss and --delay take one), got ${text}`);
    if (spread !== undefined && !parameter?.spread)
      throw new UsageError(`--${kind} takes no ~ part (only --loss and --delay do), got ${text}`);
    if (value === undefined && parameter?.required)
      throw new UsageError(`--${kind} ${text}: add :${VALUE_NAME[kind] ?? 'MS'} (${usage})`);
    const fault: Fault = {
      kind,
      consumer,
      from: from === undefined ? context.duration : Number(from),
      to: to === undefined ? 3 * context.duration : Number(to),
    };
    if (fault.from >= fault.to) throw new UsageError(`--${kind} ${text}: FROM must be before TO`);
    if (fault.to > MAX_SECONDS)
      throw new UsageError(`--${kind} ${text}: TO must be at most ${MAX_SECONDS} s (ten hours)`);
    return { ...fault, ...faultParameter(kind, text, value, spread) };
  });
}

/** What the value after the window is called in an error. */
const VALUE_NAME: Partial<Record<FaultKind, string>> = { loss: 'PCT', delay: 'MS', bandwidth: 'RATE' };

function inRange(flag: string, text: string, what: string, value: number, min: number, max: number): number {
  if (value < min || value > max)
    throw new UsageError(`${flag} ${text}: ${what} must be from ${min} to ${max}, got ${value}`);
  return value;
}

/** The value after the window, checked: a slow's share, a loss's percentage and correlation, a delay and its jitter. */
function faultParameter(
  kind: FaultKind,
  text: string,
  value: string | undefined,
  spread: string | undefined,
): Partial<Fault> {
  const flag = `--${kind}`;
  if (kind === 'slow')
    return { percent: inRange(flag, text, 'PCT', value === undefined ? DEFAULT_SLOW_PERCENT : Number(value), 1, 99) };
  if (kind === 'loss') {
    const lossPct = inRange(flag, text, 'PCT', Number(value), 1, 100);
    return {
      lossPct,
      ...(spread === undefined ? {} : { correlationPct: inRange(flag, text, 'CORR', Number(spread), 0, 99) }),
    };
  }
  if (kind === 'delay') {
    const delayMs = inRange(flag, text, 'MS', Number(value), 1, MAX_LINK_DELAY_MS);
    return {
      delayMs,
      ...(spread === undefined ? {} : { jitterMs: inRange(flag, text, 'JITTER', Number(spread), 0, delayMs) }),
    };
  }
  if (kind === 'bandwidth') return { rateBytesPerSec: parseRate(text, value ?? '') };
  return {};
}

/** `20KB` as bytes a second (whole: a fraction of a byte is rounded), within the cap's bounds. */
function parseRate(text: string, value: string): number {
  const [, number = '', unit = ''] = /^([\d.]+)(B|KB|MB)$/.exec(value) ?? [];
  const bytes = Math.round(Number(number) * (RATE_UNITS[unit] ?? 1));
  if (bytes < MIN_LINK_RATE || bytes > MAX_LINK_RATE)
    throw new UsageError(
      `--bandwidth ${text}: RATE must be from ${rateEntry(MIN_LINK_RATE)} to ${rateEntry(MAX_LINK_RATE)} a second, ` +
        `got ${value}`,
    );
  return bytes;
}

/** `--crash broker@FROM-TO`: the window is required, and the broker is up when publishing starts. */
function brokerCrash(kind: FaultKind, text: string, from: string | undefined, to: string | undefined): Fault {
  if (kind !== 'crash')
    throw new UsageError(`--${kind} ${text}: only --crash can fault the broker (--crash broker@FROM-TO)`);
  if (from === undefined || to === undefined || text.includes(':'))
    throw new UsageError(`--crash broker takes broker@FROM-TO (seconds since publishing started), got ${text}`);
  const fault: Fault = { kind, consumer: BROKER, from: Number(from), to: Number(to) };
  if (fault.from <= 0)
    throw new UsageError(`--crash ${text}: FROM must be after 0 (the broker is up when publishing starts)`);
  if (fault.from >= fault.to) throw new UsageError(`--crash ${text}: FROM must be before TO`);
  if (fault.to > MAX_SECONDS) throw new UsageError(`--crash ${text}: TO must be at most ${MAX_SECONDS} s (ten hours)`);
  return fault;
}

/**
 * What makes a broker crash unrunnable: a restart at or after the end of publishing (with
 * --publish-until; by default publishing outlasts it, see publishingEnds), a consumer that would
 * have to subscribe while the broker is down (a crashed one's restart, the late joiner), and a
 * foreign consumer in the run (docs/CONSUMER.md has no `brokerLost`: it would wait out its idle timeout).
 */
export function checkBrokerCrashes(
  faults: Fault[],
  context: { duration: number; publishUntil: number | null; joinLate: string | null; foreign: string[] },
): void {
  const crashes = faults.filter(isBrokerFault);
  if (crashes.length === 0) return;
  const first = describeFault(crashes[0]!);
  if (context.foreign.length > 0)
    throw new UsageError(
      `${first} cannot run with --consumer-cmd (${context.foreign.join(', ')}): a foreign consumer is never ` +
        `told the broker was lost`,
    );
  const publishEnd = publishingEnds({ ...context, faults });
  const starts = [
    ...faults
      .filter((f) => f.kind === 'crash' && !isBrokerFault(f))
      .map((f) => ({ at: f.to, what: `${describeFault(f)} restarts ${f.consumer}` })),
    ...(context.joinLate === null
      ? []
      : [
          {
            at: Math.min(...faults.map((f) => f.from)),
            what: `--join-late ${context.joinLate} joins at the first fault`,
          },
        ]),
  ];
  for (const crash of crashes) {
    const flag = describeFault(crash);
    if (crash.to >= publishEnd)
      throw new UsageError(
        `${flag}: TO must be before publishing ends (--publish-until ${fmt(publishEnd)}): the broker must be ` +
          `back while there is something to publish`,
      );
    const start = starts.find((s) => s.at >= crash.from && s.at < crash.to);
    if (start)
      throw new UsageError(
        `${start.what} at ${fmt(start.at)} s, while the broker is down (${flag}): a consumer can only subscribe ` +
          `to a running broker`,
      );
  }
}

/**
 * What makes a schedule impossible to judge: one consumer with two faults at
 * once, or every consumer faulted at the same moment (nobody left to compare
 * against). Windows are [from, to): one may start where another ends.
 */
export function checkSchedule(faults: Fault[], consumers: string[]): void {
  for (const [i, a] of faults.entries()) {
    for (const b of faults.slice(i + 1)) {
      if (a.consumer === b.consumer && a.from < b.to && b.from < a.to) {
        throw new UsageError(
          `${describeFault(a)} overlaps ${describeFault(b)}: one fault at a time per ` +
            `${a.consumer === PUBLISHER ? 'client' : 'consumer'}`,
        );
      }
    }
  }
  // The number of faulted consumers only rises at a window's start: check each start (neither the broker nor the
  // publisher is a consumer).
  const ofConsumers = faults.filter((f) => consumers.includes(f.consumer));
  for (const start of ofConsumers.map((f) => f.from)) {
    const faulted = new Set(ofConsumers.filter((f) => f.from <= start && start < f.to).map((f) => f.consumer));
    if (faulted.size === consumers.length) {
      throw new UsageError(
        `at ${fmt(start)} s every consumer is faulted (${[...faulted].join(', ')}); leave at least one of ` +
          `${consumers.join(', ')} running to compare against`,
      );
    }
  }
}

/**
 * Does this fault cut its client off the broker for its whole window? A partition, 100 % loss, and a
 * delay whose shortest hold reaches the idle timeout: nothing arrives for that long, so the
 * connection dies, and no reconnection's handshake fits in an attempt (0.5 s) while the delay lasts.
 */
function cutsOff(f: Fault, idleTimeoutMs: number): boolean {
  if (f.kind === 'partition') return true;
  if (f.kind === 'loss') return f.lossPct === 100;
  return f.kind === 'delay' && (f.delayMs ?? 0) - (f.jitterMs ?? 0) >= idleTimeoutMs;
}

/**
 * A publisher cut off (cutsOff) longer than it can come back from: its connection dies one idle
 * timeout in, it retries for max(3 s, the idle timeout), then gives up and exits 1, which ends the
 * run. The limit is the runtime's own (longestSurvivableCutMs). A consumer may be cut off longer:
 * its subscription ends for good, which the checker explains.
 */
export function checkPublisherCuts(faults: Fault[], idle: { idleTimeoutMs: number; chosen: boolean }): void {
  const limitMs = longestSurvivableCutMs(idle.idleTimeoutMs);
  const cut = faults.find(
    (f) => f.consumer === PUBLISHER && cutsOff(f, idle.idleTimeoutMs) && (f.to - f.from) * 1000 > limitMs,
  );
  if (cut === undefined) return;
  const idleText = `${fmt(idle.idleTimeoutMs / 1000)} s${idle.chosen ? '' : ', the default'}`;
  throw new UsageError(
    `${describeFault(cut)}: ` +
      `${cut.kind === 'delay' ? 'a delay as long as the QUIC idle timeout cuts the link; ' : ''}the publisher ` +
      `comes back from a cut of at most ${fmt(limitMs / 1000)} s (QUIC idle timeout ${idleText}: its connection ` +
      (`dies one idle timeout in, then it retries for max(3 s, the idle timeout)); shorten the window or raise ` +
        `--idle-timeout`),
  );
}
