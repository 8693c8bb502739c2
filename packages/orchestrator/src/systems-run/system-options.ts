import {
  installed,
  IDIOM_NAMES,
  knobValues,
  SYSTEMS,
  type Endpoint,
  type IdiomName,
  type TargetSystem,
} from '@state-divergence/systems';
import { UsageError } from '../model/errors.js';
import { publishingEnds, type Fault } from '../model/faults.js';
import { consumerName, DEFAULTS, type RawOptions } from '../model/options.js';
import { checkBrokerCrashes, checkSchedule, parseFaults } from '../cli/parse-faults.js';
import { resolveKnobs } from '../cli/resolve-knobs.js';
import { OUR_BROKER } from '../model/our-broker.js';
import { checkCompactFor, parseCompactAt } from './compaction.js';
import { checkKnobsFor, givenKnobs, knobsOf, refuseKnobsWithoutSystem, refuseServerKnobs } from './knob-flags.js';
import { endpointOf, refuseServerFaults, type EndpointFlags } from './endpoint.js';
import { parseNetworkFaults, refuseRelayedTls, type LinkReset, type NetworkFlags } from './network-faults.js';

/** `--system all`: every installed system, both idioms, one after another. */
export const EVERY_SYSTEM = 'all';

/** The flags only a run against a real system reads, as yargs hands them over. */
export interface RawSystemFlags extends RawOptions, EndpointFlags, NetworkFlags {
  system?: string | undefined;
  idiom?: string | undefined;
  compactAt?: string[] | undefined;
}

/** One run against a real system, checked: what run-system.ts carries out. */
export interface SystemRunOptions {
  /** Each (system, idiom) pair to run, in order: one for `--system NAME`, every installed × both for `all`. */
  runs: { system: TargetSystem; idiom: IdiomName }[];
  /** Systems `--system all` left out, each with the installed() line that says why. */
  skipped: string[];
  /** `--endpoint`: the server someone runs, with its credentials; null to start one here. */
  endpoint: Endpoint | null;
  consumers: string[];
  rate: number;
  keys: number;
  payload: number;
  deleteRatio: number;
  seed: number;
  /** Seconds per phase: the stall's default window [d, 3d), and how long the consumers get to drain. */
  duration: number;
  /** The stalls, in seconds since publishing started. */
  stalls: Fault[];
  /**
   * Every fault (the stalls, --slow, --crash of a consumer or `broker`, --partition, --delay), in time
   * order: system-faults.ts stages the process faults, network-links.ts the network ones.
   */
  faults: Fault[];
  /** `--reset NAME@T`, as given: each consumer's connections through its relay destroyed at T. */
  resets: LinkReset[];
  /** When publishing ends, seconds after it started (by default when the last stall ends, as the seed's rule). */
  publishEndsAt: number;
  /** The knob flags given, by knob name: each run sets those its system has (knobsOf), defaults for the rest. */
  knobs: Record<string, string>;
  /** `--compact-at`: seconds since publishing started, sorted; run by the systems with a compact action. */
  compactAt: number[];
  json: boolean;
  /** The live view when stdout is a terminal (--no-tui: the text alone). */
  tui: boolean;
  /** Write the HTML report (system-html.ts) here after the runs. */
  report: string | null;
}

/** Flags of our broker's run that a real system does not take yet: each refused in one line. */
function refuseOurFlags(raw: RawSystemFlags, name: string): void {
  const notYet = (flag: string) => new UsageError(`${flag} is not yet for --system ${name}`);
  if (raw.mode !== undefined && raw.mode !== DEFAULTS.mode)
    throw new UsageError(`--mode is our broker's (--system ${OUR_BROKER}); not with --system ${name}`);
  const given: [string, unknown][] = [
    ['--nemesis', raw.nemesis],
    ['--join-late', raw.joinLate],
    ['--consumer-cmd', raw.consumerCmd],
    ['--data-dir', raw.dataDir],
  ];
  for (const [flag, value] of given)
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) throw notYet(flag);
}

/**
 * The runs `--system` asks for. `checkFlags` refuses the flags the chosen systems do not take (a
 * knob, --compact-at) before a missing server is: a flag wrong for a system is wrong wherever it runs.
 */
function systemsToRun(
  name: string,
  idiom: IdiomName | null,
  checkFlags: (systems: readonly TargetSystem[], all: boolean) => void,
  local: boolean,
): Pick<SystemRunOptions, 'runs' | 'skipped'> {
  const idioms = idiom === null ? IDIOM_NAMES : [idiom];
  if (name === EVERY_SYSTEM) {
    const here = SYSTEMS.filter((system) => installed(system) === null);
    const skipped = SYSTEMS.flatMap((system) => installed(system) ?? []);
    if (here.length === 0) throw new UsageError(`no system is installed: ${skipped.join('; ')}`);
    checkFlags(here, true);
    return { runs: here.flatMap((system) => idioms.map((i) => ({ system, idiom: i }))), skipped };
  }
  const system = SYSTEMS.find((s) => s.name === name);
  if (system === undefined)
    throw new UsageError(
      `--system must be one of ${[OUR_BROKER, EVERY_SYSTEM, ...SYSTEMS.map((s) => s.name)].join(', ')}, got ${name}`,
    );
  checkFlags([system], false);
  // A server someone runs elsewhere needs no binary here.
  const refusal = local ? installed(system) : null;
  if (refusal !== null) throw new UsageError(refusal);
  return { runs: [{ system, idiom: idiom ?? 'naive' }], skipped: [] };
}

/**
 * `--system` and `--idiom`, checked before anything starts: null for our broker (today's path,
 * which normalizeOptions checks), else the run against a real system. Pure but for installed(),
 * which looks at PATH, and `--credentials`, which reads its file (or `env`).
 */
export function parseSystemRun(raw: RawSystemFlags, env: NodeJS.ProcessEnv = process.env): SystemRunOptions | null {
  const name = raw.system ?? OUR_BROKER;
  const idiom = raw.idiom ?? null;
  const knobFlags = givenKnobs(raw);
  if (name === OUR_BROKER) {
    if (idiom !== null)
      throw new UsageError(`--idiom is for --system NAME (a real system); our broker takes --mode instead`);
    if (raw.endpoint !== undefined || raw.credentials !== undefined)
      throw new UsageError('--endpoint and --credentials are for --system NAME (a real system someone runs)');
    refuseKnobsWithoutSystem(knobFlags);
    if ((raw.compactAt ?? []).length > 0) throw new UsageError('--compact-at is for --system NAME (a real system)');
    if ((raw.reset ?? []).length > 0) throw new UsageError('--reset is for --system NAME (a TCP connection to reset)');
    return null;
  }
  if (idiom !== null && !(IDIOM_NAMES as readonly string[]).includes(idiom))
    throw new UsageError(`--idiom must be one of ${IDIOM_NAMES.join(', ')}, got ${idiom}`);
  refuseServerFaults(raw, name === EVERY_SYSTEM);
  refuseOurFlags(raw, name);
  if (raw.report === '') throw new UsageError('--report needs a path, e.g. --report run.html');
  const knobs = resolveKnobs(raw);
  const consumers = Array.from({ length: knobs.consumers }, (_, i) => consumerName(i));
  const context = { duration: knobs.duration, consumers };
  const network = parseNetworkFaults(raw, name, context);
  const given = [
    ...network.faults,
    ...parseFaults('stall', raw.stall ?? [], context),
    ...parseFaults('slow', raw.slow ?? [], context),
    ...parseFaults('crash', raw.crash ?? [], context),
  ];
  // As our broker's run: with no fault given, the seed's (the last consumer stalled over [d, 3d)).
  const faults = (given.length > 0 ? given : parseFaults('stall', [consumers.at(-1)!], context)).sort(
    (a, b) => a.from - b.from,
  );
  checkSchedule(faults, consumers);
  const schedule = { duration: knobs.duration, publishUntil: knobs.publishUntil, joinLate: null, foreign: [] };
  checkBrokerCrashes(faults, schedule);
  const publishEndsAt = publishingEnds({ faults, publishUntil: knobs.publishUntil, duration: knobs.duration });
  const compactAt = parseCompactAt(raw.compactAt ?? [], publishEndsAt);
  const chosen = systemsToRun(
    name,
    idiom as IdiomName | null,
    (systems, all) => {
      checkKnobsFor(knobFlags, systems, all);
      // Each system's own check of the values it would take, before its server starts.
      for (const system of systems) {
        if (raw.endpoint !== undefined) refuseServerKnobs(knobFlags, system);
        try {
          knobValues(system, knobsOf(system, knobFlags));
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      }
      checkCompactFor(compactAt, systems, SYSTEMS);
    },
    raw.endpoint === undefined,
  );
  const endpoint = endpointOf(raw, chosen.runs[0]!.system, env);
  refuseRelayedTls(endpoint, chosen.runs[0]!.system, network.faults.length + network.resets.length > 0);
  return {
    ...chosen,
    endpoint,
    consumers,
    rate: knobs.rate,
    keys: knobs.keys,
    payload: knobs.payload,
    deleteRatio: knobs.deleteRatio,
    seed: knobs.seed,
    duration: knobs.duration,
    stalls: faults.filter((f) => f.kind === 'stall'),
    faults,
    resets: network.resets,
    publishEndsAt,
    knobs: knobFlags,
    compactAt,
    json: raw.json ?? DEFAULTS.json,
    tui: raw.tui ?? DEFAULTS.tui,
    report: raw.report ?? null,
  };
}
