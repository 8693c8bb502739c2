/**
 * Every knob of protocol's settings.ts is bounded alike at the CLI (normalizeOptions) and at the
 * IPC guard of every init that carries it: a value just outside is refused by both, the edge taken
 * by both. All of it is read from the one table, so a new knob is checked here without a new line.
 */
import {
  initProblem,
  KNOB_NAMES,
  knob,
  settingsOf,
  type BrokerEndpoint,
  type ChildInit,
  type KnobName,
  type KnobRole,
  type LogSettings,
} from '@state-divergence/protocol';
import {
  brokerInit,
  consumerInit,
  DEFAULTS,
  normalizeOptions,
  publisherInit,
  relayInit,
  renderFlagReference,
} from '@state-divergence/orchestrator';
import { tty, usage } from './helpers/usage.js';

const log: LogSettings = { level: 'info', file: null, mode: 'durable' };
const endpoint: BrokerEndpoint = {
  host: '127.0.0.1',
  port: 4433,
  caPem: 'PEM',
  idleTimeoutMs: 30_000,
  datagramBytes: DEFAULTS.datagramSize,
  token: 'ab'.repeat(32),
};
const settings = { ...DEFAULTS, idleTimeoutMs: 30_000 };
const durableLog = { dir: '/tmp/log', fsync: 'periodic' as const, retention: null };
/** The publisher's init with its endpoint changed. */
const reaching = (changes: Partial<BrokerEndpoint>) => publisherInit({ ...endpoint, ...changes }, settings, log);
/** The broker's init with its durable log's retention set. */
const retaining = (retention: number) => ({ ...INITS.broker, durableLog: { ...durableLog, retention } }) as ChildInit;
/** Each role's init as the orchestrator builds it, from the defaults. */
const INITS: Record<KnobRole, ChildInit> = {
  broker: brokerInit({
    ...settings,
    mode: 'durable',
    tls: { certPem: 'PEM', keyPem: 'KEY' },
    token: endpoint.token,
    log,
    durableLog,
  }),
  publisher: publisherInit(endpoint, settings, log),
  rogue: {
    role: 'rogue',
    name: 'rogue',
    broker: endpoint,
    decoyCaPem: 'PEM',
    log,
    ...settingsOf('rogue', settings),
  },
  relay: relayInit('consumer-1', endpoint, settings.seed, log),
};

type Carrier = [where: string, initWith: (value: number) => ChildInit];
/** Where an init carries a knob under another name, or deeper than its top level. */
const CARRIED_AS: Partial<Record<KnobName, Carrier[]>> = {
  datagramSize: [
    ['broker datagramBytes', (v) => ({ ...INITS.broker, datagramBytes: v }) as ChildInit],
    ['relay datagramBytes', (v) => ({ ...INITS.relay, datagramBytes: v }) as ChildInit],
    ['publisher broker.datagramBytes', (v) => reaching({ datagramBytes: v })],
  ],
  idleTimeoutMs: [['publisher broker.idleTimeoutMs', (v) => reaching({ idleTimeoutMs: v })]],
  staleAfterMs: [['consumer staleAfterMs', (v) => consumerInit('consumer-1', endpoint, 'resync', log, null, v)]],
  retention: [['broker durableLog.retention', retaining]],
};

/** Every init that carries `name`, each made with a value of it. */
function carriers(name: KnobName): Carrier[] {
  const direct = (knob(name).sentTo ?? []).map((role): Carrier => [
    `${role} ${name}`,
    (v) => ({ ...INITS[role], [name]: v }) as ChildInit,
  ]);
  return [...direct, ...(CARRIED_AS[name] ?? [])];
}

const camel = (flag: string) => flag.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
/** A run every knob's edges can run in: short phases, so a 1 s idle timeout outlasts the stall. */
const run = (name: KnobName, value: number) => ({ duration: 0.2, [camel(knob(name).flag)]: value });
/** Just past `value`, away from the range, as fine as the knob's steps. */
const past = (value: number, direction: 1 | -1, whole: boolean) =>
  value + direction * (whole ? 1 : Math.max(1, Math.abs(value)) * 1e-6);

describe.each(KNOB_NAMES.map((name) => [knob(name).flag, name] as const))('--%s', (flag, name) => {
  const { integer, min, max, seconds, resolvedMax } = knob(name);

  test('the CLI takes its edges and refuses just past them, naming the flag', () => {
    for (const edge of [min, max]) {
      expect(() => normalizeOptions(run(name, edge), tty)).not.toThrow();
    }
    const fraction = integer ? [min + 0.5] : [];
    const outside = [past(min, -1, integer), past(max, 1, integer), Number.NaN, ...fraction];
    const refusal = expect.stringMatching(new RegExp(`^--${flag} must be `));
    for (const value of outside) expect([value, usage(run(name, value))]).toEqual([value, refusal]);
  });

  const scale = seconds ? 1000 : 1;
  const [low, high] = [min * scale, (resolvedMax ?? max) * scale];
  const whole = integer || seconds === true;
  const where = carriers(name);
  // A knob only the orchestrator reads (--consumers, --duration...) has no guard to agree with.
  if (where.length === 0) return;
  test.each(where)('the IPC guard of %s takes the same edges, refuses past them', (_, initWith) => {
    // The CLI's edges in the unit a process is sent, and the guard's (the same but resolvedMax).
    for (const edge of [min * scale, max * scale, low, high]) {
      expect([edge, initProblem(initWith(edge))]).toEqual([edge, undefined]);
    }
    const fraction = whole ? [low + 0.5] : [];
    const wrong = [Number.NaN, String(low), ...fraction];
    const outside = [past(low, -1, whole), past(high, 1, whole), ...wrong];
    const refusal = expect.stringMatching(/^init\.\S+ is not /);
    for (const value of outside) {
      expect([value, initProblem(initWith(value as number))]).toEqual([value, refusal]);
    }
  });
});

test('only the idle timeout takes more at the guard than at the CLI: its default grows', () => {
  const looser = KNOB_NAMES.filter((name) => knob(name).resolvedMax !== undefined);
  expect(looser).toEqual(['idleTimeoutMs']);
});

test("every knob is a flag of the run, with the table's default unless per run or in words", () => {
  const reference = renderFlagReference();
  for (const name of KNOB_NAMES) {
    const { flag, default: value, describedDefault } = knob(name);
    const shown = value === null || describedDefault ? '' : `\`${value}\``;
    const row = `| \`--${flag}\` | number | ${shown} |`;
    expect([flag, reference.includes(row)]).toEqual([flag, true]);
  }
});
