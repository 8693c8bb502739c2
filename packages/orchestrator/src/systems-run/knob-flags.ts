import type { Argv } from 'yargs';
import { SYSTEM_KNOBS, type KnobValues, type SystemKnobs } from '@state-divergence/systems/knobs';
import { UsageError } from '../model/errors.js';

/**
 * The real systems' knobs as flags: one `--<knob name>` per name any system declares, made from
 * the systems' own knob lists (packages/systems, client-free), so a knob added in a system's
 * folder is a flag with no edit here, and nothing here names a system or a knob. The values stay
 * strings, as the servers take them; each system's own check judges them (knobValues).
 */

interface KnobFlag {
  description: string;
  /** The systems that have the knob, each with its default there. */
  defaults: { system: string; value: string }[];
}

/** Every knob name, in the systems' order, with who has it. A name two systems share is one flag. */
function knobFlags(): Map<string, KnobFlag> {
  const flags = new Map<string, KnobFlag>();
  for (const { name: system, knobs } of SYSTEM_KNOBS)
    for (const knob of knobs) {
      const flag = flags.get(knob.name) ?? { description: knob.description, defaults: [] };
      flag.defaults.push({ system, value: knob.default });
      flags.set(knob.name, flag);
    }
  return flags;
}

const listed = (names: string[]) =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/** "default: 10s for nats and nats-kv", each distinct default once. */
function defaultsText(defaults: KnobFlag['defaults']): string {
  const byValue = new Map<string, string[]>();
  for (const { system, value } of defaults) byValue.set(value, [...(byValue.get(value) ?? []), system]);
  const each = [...byValue].map(([value, systems]) => `${value === '' ? '""' : value} for ${listed(systems)}`);
  return `default: ${each.join('; ')}`;
}

/** The knob flags for yargs: each a string, its --help the knob's own words and the systems' defaults. */
export function knobArguments<T>(parser: Argv<T>) {
  const specs = Object.fromEntries(
    [...knobFlags()].map(([name, flag]) => [
      name,
      { type: 'string' as const, describe: `${flag.description} (${defaultsText(flag.defaults)})` },
    ]),
  );
  // A knob named like one of our own flags would silently replace it: refused where every start sees it.
  const taken = (parser as { getOptions?: () => { key: Record<string, unknown> } }).getOptions?.().key ?? {};
  for (const name of Object.keys(specs))
    if (name in taken) throw new Error(`the knob ${name} would shadow the orchestrator's own --${name}: rename it`);
  return parser.options(specs);
}

/**
 * The knob flags given on the command line, by knob name (yargs keeps the dashed name beside its
 * camelCase copy; the dashed one is read). A flag given twice is refused: which one was meant?
 */
export function givenKnobs(raw: object): Record<string, string> {
  const given: Record<string, string> = {};
  for (const name of knobFlags().keys()) {
    const value = (raw as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) throw new UsageError(`--${name} is given ${value.length} times; give it once`);
    given[name] = String(value);
  }
  return given;
}

/** Of the given knobs, those `system` has: what its run passes to knobValues. */
export function knobsOf(system: SystemKnobs, given: Readonly<Record<string, string>>): KnobValues {
  return Object.fromEntries(
    system.knobs.filter((k) => given[k.name] !== undefined).map((k) => [k.name, given[k.name]!]),
  );
}

/**
 * Refuses, in one line, a knob flag none of `systems` has: with `--system NAME` that system must
 * have it; with `--system all` one of the systems run must, and it is set for those that have it.
 * `all` tells the two apart (the refusal names the system, or the ones that have the knob).
 */
export function checkKnobsFor(given: Readonly<Record<string, string>>, systems: readonly SystemKnobs[], all: boolean) {
  for (const name of Object.keys(given)) {
    if (systems.some((system) => system.knobs.some((k) => k.name === name))) continue;
    const owners = knobFlags()
      .get(name)!
      .defaults.map((d) => d.system);
    if (!all && systems.length === 1) {
      const own = systems[0]!.knobs.map((k) => k.name).join(', ') || 'none';
      throw new UsageError(`--${name} is not a knob of ${systems[0]!.name} (its knobs: ${own})`);
    }
    throw new UsageError(`--${name} is a knob of ${listed(owners)}, none of which this run includes`);
  }
}

/** Refuses a knob flag given for our broker's run, naming the systems that have it. */
export function refuseKnobsWithoutSystem(given: Readonly<Record<string, string>>) {
  const name = Object.keys(given)[0];
  if (name === undefined) return;
  const owners = knobFlags()
    .get(name)!
    .defaults.map((d) => d.system);
  throw new UsageError(
    `--${name} is a knob of ${listed(owners)}: it needs --system NAME (${owners.join(' or ')}, or all)`,
  );
}

/**
 * With `--endpoint` the server is someone else's: a knob of its configuration (a NATS max_pending,
 * a Redis output buffer limit, etcd's auto-compaction) cannot be set from here, so it is refused
 * rather than reported as if it held. The knobs our own client sets (Knob.client) still apply.
 */
export function refuseServerKnobs(given: Readonly<Record<string, string>>, system: SystemKnobs) {
  for (const knob of system.knobs)
    if (given[knob.name] !== undefined && knob.client !== true)
      throw new UsageError(
        `--${knob.name} is ${system.name}'s server setting; with --endpoint the server is not ours to configure: ` +
          'set it on the server',
      );
}

/** The knobs a run holds to: all of them on a server of ours, only the client's on someone's (--endpoint). */
export function knobsInEffect(system: SystemKnobs, values: KnobValues, remote: boolean): Record<string, string> {
  return Object.fromEntries(
    system.knobs.filter((k) => !remote || k.client === true).map((k) => [k.name, values[k.name]!]),
  );
}
