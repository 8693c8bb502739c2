import {
  defaultIdleTimeoutMs,
  FSYNC_POLICIES,
  LOG_LEVELS,
  MODE_TABLE,
  MODES,
  OVERFLOW_POLICIES,
  type FsyncPolicy,
  type LogLevel,
  type Mode,
  type OverflowPolicy,
} from '@state-divergence/protocol';
import { describeFault, type Fault } from '../model/faults.js';
import { checkBrokerCrashes, checkPublisherCuts, checkSchedule, parseFaults } from './parse-faults.js';
import { parseConsumerCommands } from './parse-consumer-cmd.js';
import { withDrawnFaults } from './random-nemesis.js';
import { UsageError } from '../model/errors.js';
import { buildPlan, longestStallMs } from '../run/plan.js';
import {
  consumerName,
  DEFAULTS,
  EXPANSIONS,
  MODE_CHOICES,
  type ModeChoice,
  type Options,
  type RawOptions,
} from '../model/options.js';
import { resolveKnobs } from './resolve-knobs.js';

/**
 * Every fault of the run, in time order: --stall, --slow, --crash, --partition, --loss, --delay and --bandwidth
 * entries; with none of them, the seed's fault (the last consumer stalled over [d, 3d)).
 */
function scheduleFaults(raw: RawOptions, context: { duration: number; consumers: string[] }): Fault[] {
  const given = [
    ...parseFaults('stall', raw.stall ?? [], context),
    ...parseFaults('slow', raw.slow ?? [], context),
    ...parseFaults('crash', raw.crash ?? [], context),
    ...parseFaults('partition', raw.partition ?? [], context),
    ...parseFaults('loss', raw.loss ?? [], context),
    ...parseFaults('delay', raw.delay ?? [], context),
    ...parseFaults('bandwidth', raw.bandwidth ?? [], context),
  ];
  // The same fault named twice (`--stall consumer-4,consumer-2 --stall consumer-4`) is one fault.
  const unique = [...new Map(given.map((f) => [JSON.stringify(f), f])).values()];
  const faults = unique.length > 0 ? unique : parseFaults('stall', [context.consumers.at(-1)!], context);
  checkSchedule(faults, context.consumers);
  return faults.sort(
    (a, b) => a.from - b.from || context.consumers.indexOf(a.consumer) - context.consumers.indexOf(b.consumer),
  );
}

/**
 * --fsync, --retention, --data-dir and --keep-data: checked here, and refused without a mode
 * that keeps a log (as --overflow is without the lossy column). Whether the data dir can be
 * used is a fact about the disk, checked before anything starts (run/data-dir.ts).
 */
function dataOptions(
  raw: RawOptions,
  modes: Mode[],
  retention: number | null,
): Pick<Options, 'fsync' | 'dataDir' | 'keepData'> {
  const fsync = raw.fsync ?? DEFAULTS.fsync;
  if (!(FSYNC_POLICIES as readonly string[]).includes(fsync))
    throw new UsageError(`--fsync must be one of ${FSYNC_POLICIES.join(', ')}, got ${fsync}`);
  if (raw.dataDir === '') throw new UsageError('--data-dir needs a path');
  const given = [
    fsync !== DEFAULTS.fsync && '--fsync',
    retention !== null && '--retention',
    raw.dataDir !== undefined && '--data-dir',
    raw.keepData === true && '--keep-data',
  ].filter((flag) => flag !== false);
  if (given.length > 0 && !modes.some((m) => MODE_TABLE[m].keepsLog))
    throw new UsageError(
      `${given.join(', ')} only matter${given.length === 1 ? 's' : ''} to a mode with a durable log; add --mode ` +
        `durable (or all)`,
    );
  return { fsync: fsync as FsyncPolicy, dataDir: raw.dataDir ?? null, keepData: raw.keepData ?? false };
}

/**
 * --stale-after (refused where no mode's broker speaks when idle: there silence means nothing) and
 * --idle-timeout (refused unless it outlasts the longest stall: a frozen consumer's connection would
 * die, and the stall would measure something else); with the idle timeout known, a publisher cut
 * off longer than it can come back from (checkPublisherCuts).
 */
function checkTransport(
  raw: RawOptions,
  modes: Mode[],
  plan: Parameters<typeof buildPlan>[0],
  idleTimeoutMs: number | null,
): void {
  if (raw.staleAfter !== undefined && !modes.some((m) => MODE_TABLE[m].heartbeat)) {
    throw new UsageError(
      `--stale-after only matters where the broker speaks when idle (` +
        `${MODES.filter((m) => MODE_TABLE[m].heartbeat).join(', ')}); add one of those with --mode`,
    );
  }
  const longest = longestStallMs(buildPlan(plan));
  if (idleTimeoutMs === null) {
    checkPublisherCuts(plan.faults, { idleTimeoutMs: defaultIdleTimeoutMs(longest), chosen: false });
    return;
  }
  if (idleTimeoutMs <= longest)
    throw new UsageError(
      `--idle-timeout ${raw.idleTimeout} must outlast the longest stall (${longest / 1000} s): a frozen ` +
        `consumer's connection would die of it`,
    );
  checkPublisherCuts(plan.faults, { idleTimeoutMs, chosen: true });
}

/**
 * Applies defaults and checks every flag, once, before anything is started.
 * Pure: the only outside fact it needs (is stderr a terminal?) is passed in.
 */
export function normalizeOptions(raw: RawOptions, environment: { stderrIsTTY: boolean }): Options {
  const knobs = resolveKnobs(raw);
  const { consumers, duration, seed, publishUntil } = knobs;
  const mode = raw.mode ?? DEFAULTS.mode;
  if (!(MODE_CHOICES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode must be one of ${MODE_CHOICES.join(', ')}, got ${mode}`);
  }
  const valid = Array.from({ length: consumers }, (_, i) => consumerName(i));
  const joinLate = raw.joinLate ?? null;
  if (joinLate !== null && !valid.includes(joinLate))
    throw new UsageError(`--join-late ${joinLate} is not a consumer of this run; valid: ${valid.join(', ')}`);
  // --nemesis random writes its schedule in as fault flags, each drawn fault checked by this whole function
  // (random-nemesis.ts):
  // from here on a drawn schedule is parsed and checked exactly as a written one.
  const drawn =
    raw.nemesis === undefined
      ? null
      : withDrawnFaults(raw, { seed, duration, consumers: valid, joinLate, publishUntil }, (written) =>
          normalizeOptions(written, environment),
        );
  const faults = scheduleFaults(drawn ?? raw, { duration, consumers: valid });
  const stall = valid.filter((name) => faults.some((f) => f.kind === 'stall' && f.consumer === name));
  const joinerFault = faults.find((f) => f.consumer === joinLate);
  if (joinerFault)
    throw new UsageError(
      `--join-late ${joinLate} is also ` +
        `${joinerFault.kind === 'stall' ? 'stalled' : `given --${joinerFault.kind}`}; a late joiner must be one ` +
        `of the running consumers`,
    );
  const overflow = raw.overflow ?? DEFAULTS.overflow;
  if (!(OVERFLOW_POLICIES as readonly string[]).includes(overflow))
    throw new UsageError(`--overflow must be one of ${OVERFLOW_POLICIES.join(', ')}, got ${overflow}`);
  const modes = EXPANSIONS[mode] ?? [mode as Mode];
  if (overflow !== DEFAULTS.overflow && !modes.some((m) => MODE_TABLE[m].queuePolicy === 'overflow'))
    throw new UsageError(`--overflow ${overflow} changes the lossy column only; add --mode lossy (or all)`);
  const consumerCmd = parseConsumerCommands(raw.consumerCmd ?? [], valid);
  checkBrokerCrashes(faults, { duration, publishUntil, joinLate, foreign: consumerCmd.map((c) => c.consumer) });
  const logLevel = raw.logLevel ?? (raw.logFile === undefined && environment.stderrIsTTY ? 'warn' : 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${logLevel}`);
  }
  if (raw.logFile === '') throw new UsageError('--log-file needs a path');
  if (raw.report === '') throw new UsageError('--report needs a path, e.g. --report run.html');
  checkTransport(raw, modes, { duration, faults, publishUntil, joinLate }, knobs.idleTimeoutMs);
  return {
    ...knobs,
    mode: mode as ModeChoice,
    modes,
    faults,
    stall,
    nemesis: drawn === null ? null : { kind: 'random', seed, flags: faults.map(describeFault).join(' ') },
    overflow: overflow as OverflowPolicy,
    joinLate,
    consumerCmd,
    tui: raw.tui ?? DEFAULTS.tui,
    json: raw.json ?? DEFAULTS.json,
    logFile: raw.logFile ?? DEFAULTS.logFile,
    logLevel: logLevel as LogLevel,
    report: raw.report ?? DEFAULTS.report,
    ...dataOptions(raw, modes, knobs.retention),
  };
}
