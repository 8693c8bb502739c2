/**
 * The IPC guards check what docs/ARCHITECTURE.md says they do: every field of
 * each role's init, counters and report, and every reply's value by its kind.
 * Each message is built by hand, then each of its fields is taken away (or
 * spoiled) in turn: the guard must refuse it and name that field.
 */
import {
  CLEAR_LINK,
  childMessageProblem,
  initProblem,
  KNOB_DEFAULTS,
  settingsOf,
  isChildInit,
  isChildMessage,
  isOrchestratorCommand,
  PARTITIONED_LINK,
  readForeignMessage,
  type BrokerEndpoint,
  type BrokerReport,
  type BrokerInit,
  type ChildInit,
  type ConsumerInit,
  type Counters,
  type LinkCounters,
  type LogSettings,
  type PublisherInit,
  type RelayInit,
  type Report,
  type RogueInit,
} from '@state-divergence/protocol';

const log: LogSettings = { level: 'info', file: null, mode: 'lossy' };
const broker: BrokerEndpoint = {
  host: '127.0.0.1',
  port: 4433,
  caPem: 'PEM',
  idleTimeoutMs: 30_000,
  datagramBytes: 1350,
  token: 'ab'.repeat(32),
};
/** The knobs' values (protocol's settings.ts) an init carries: each is taken away below like any field. */
const knobs = { ...KNOB_DEFAULTS, coalesceMs: 0, idleTimeoutMs: 30_000, deleteRatio: 0.05, rogueFrames: 100 };
const inits: ChildInit[] = [
  {
    role: 'broker',
    name: 'broker',
    host: '127.0.0.1',
    port: 0,
    queuePolicy: 'drop-new',
    durableLog: null,
    ...settingsOf('broker', knobs),
    batchMaxEvents: 256,
    streamWindowBytes: 1 << 20,
    datagramBytes: 1350,
    heartbeatMs: 100,
    certPem: 'PEM',
    keyPem: 'KEY',
    token: 'ab'.repeat(32),
    log,
  } satisfies BrokerInit,
  { role: 'publisher', name: 'publisher', broker, ...settingsOf('publisher', knobs), log } satisfies PublisherInit,
  {
    role: 'consumer',
    name: 'consumer-1',
    broker,
    subscribeWith: 'latest',
    detectGaps: false,
    resumable: false,
    checkpointDir: null,
    staleAfterMs: null,
    log,
  } satisfies ConsumerInit,
  { role: 'rogue', name: 'rogue', broker, decoyCaPem: 'PEM', ...settingsOf('rogue', knobs), log } satisfies RogueInit,
  {
    role: 'relay',
    name: 'relay-consumer-3',
    client: 'consumer-3',
    upstream: { host: '127.0.0.1', port: 4433 },
    datagramBytes: 1350,
    ...settingsOf('relay', knobs),
    log,
  } satisfies RelayInit,
];
const link: LinkCounters = { forwarded: 10, dropped: 2, bytes: 9000, maxHeld: 0 };
const subscriber = { queued: 0, delivered: 5, dropped: 1, lastAccepted: 5, bytesSent: 700 };
const counters: Counters[] = [
  { role: 'broker', at: 1_700_000_000_000, head: 6, subscribers: { 'consumer-1': subscriber }, cpuMicros: 812_000 },
  { role: 'publisher', published: 6, done: false, cpuMicros: 640_000 },
  {
    role: 'consumer',
    applied: 5,
    lastOffset: 6,
    endedEarly: null,
    syncing: false,
    reconnects: 0,
    skippedRanges: [[2, 3]],
    coveredAfter: 0,
  },
  { role: 'rogue', connections: 2, framesSent: 9, done: false },
  { role: 'relay', up: link, down: link, caps: [] },
];
const reports: Report[] = [
  {
    role: 'broker',
    epoch: 1,
    recovered: null,
    durable: null,
    head: 6,
    lastWriteOffsets: [0, 6, 3],
    digest: '1f',
    subscribers: {
      'consumer-1': {
        ...subscriber,
        droppedRanges: [[4, 4]],
        maxQueued: 3,
        endedEarly: null,
        disconnectedAt: null,
        disconnects: 0,
        lags: 0,
        resumes: 0,
        resyncBytes: 0,
        resyncFrames: 0,
        fullSnapshotBytes: 0,
        discarded: 0,
        replayedEvents: 0,
        replayBytes: 0,
        backfills: 0,
        transport: { sent: 0, lost: 0, retrans: 0, retransBytes: 0 },
        blockedWrites: [{ startedAt: 1_700_000_000_000, bytesBefore: 100, bytes: 50, ms: 120.5 }],
        marks: [{ at: 1_700_000_000_000, what: 'drops started', offset: 4 }],
        marksDropped: 0,
      },
    },
  },
  {
    role: 'publisher',
    published: 2,
    authority: { versions: [1, 2], values: [7, 9], deleted: [0, 0] },
    history: { keys: new Uint32Array([0, 1]), values: new Uint32Array([7, 9]), deleted: new Uint8Array(2) },
    startedAt: 1,
    stoppedAt: 2,
    blockedMs: 0,
    discarded: [],
    acknowledgedLost: 0,
    reconnects: 0,
    outageMs: 0,
  },
  {
    role: 'consumer',
    applied: 2,
    lastOffset: 2,
    coveredAfter: 0,
    latency: { appliedAt: new Float64Array([1]), latencyMs: new Float64Array([0.5]) },
    lags: 0,
    resumes: 0,
    syncs: [{ kind: 'snapshot', at: 1, frames: 0, keys: 0, bytes: 0, offset: 0 }],
    entries: [[0, 1, 7]],
    endedEarly: null,
    disconnects: 0,
    reconnects: 0,
    skippedRanges: [],
  },
  {
    role: 'rogue',
    connections: 1,
    framesSent: 3,
    refusals: { badToken: 1 },
    closedWithoutError: 0,
    wrongPinRejected: true,
    done: true,
    byAttack: { 'no token': { badToken: 1 } },
  },
  { role: 'relay', up: link, down: { ...link, maxHeld: 4 }, clients: 2, cpuMicros: 1234.5, caps: [] },
];

/** A copy of `value` without `key`. */
const without = (value: object, key: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
const status = (value: unknown) => ({ type: 'reply', id: 1, kind: 'status', value });
const gather = (report: unknown) => ({
  type: 'reply',
  id: 2,
  kind: 'gather',
  value: { report, resources: { cpuMs: 10, maxRssKb: 2048 } },
});

describe('init messages', () => {
  test.each(inits.map((init) => [init.role, init] as const))('a whole %s init is taken', (_role, init) => {
    expect(initProblem(init)).toBeUndefined();
    expect(isChildInit(init)).toBe(true);
  });

  const missing = inits.flatMap((init) => Object.keys(init).map((key) => [init.role, key, init] as const));
  test.each(missing)('a %s init without %s is refused, naming it', (_role, key, init) => {
    expect(isChildInit(without(init, key))).toBe(false);
    expect(initProblem(without(init, key))).toBe(`init.${key} is missing`);
  });

  test('a nested field, a wrong type and a value outside its set are each named', () => {
    const [brokerInit, publisherInit] = inits;
    expect(initProblem({ ...publisherInit, broker: without(broker, 'datagramBytes') })).toBe(
      'init.broker.datagramBytes is missing',
    );
    expect(initProblem({ ...brokerInit, queueCapacity: '512' })).toBe(
      'init.queueCapacity is not a non-negative integer',
    );
    expect(initProblem({ ...brokerInit, queuePolicy: 'drop-all' })).toBe(
      'init.queuePolicy is not one of "drop-new", "drop-oldest", "disconnect", "block", "resync", "backfill"',
    );
    // The broker's features (run/mode-features.ts) are checked like any field.
    expect(
      initProblem({ ...brokerInit, durableLog: { dir: '/tmp/log', fsync: 'sometimes', retention: null } }),
    ).toMatch(/^init\.durableLog\.fsync is not one of/);
    expect(initProblem({ ...brokerInit, heartbeatMs: '250' })).toBe('init.heartbeatMs is not a number');
    expect(initProblem({ ...brokerInit, log: { ...log, level: 'loud' } })).toMatch(/^init\.log\.level is not one of/);
    expect(initProblem({ ...brokerInit, role: 'auditor' })).toMatch(/^init\.role is not one of "broker"/);
    expect(initProblem('broker')).toBe('init is not an object');
  });
});

describe('status replies and progress carry every counter of their role', () => {
  test.each(counters.map((c) => [c.role, c] as const))('whole %s counters are taken', (_role, value) => {
    expect(childMessageProblem(status(value))).toBeUndefined();
    expect(isChildMessage({ type: 'progress', counters: value })).toBe(true);
  });

  const missing = counters.flatMap((c) => Object.keys(c).map((key) => [c.role, key, c] as const));
  test.each(missing)('%s counters without %s are refused, naming it', (_role, key, value) => {
    expect(childMessageProblem(status(without(value, key)))).toBe(`reply.value.${key} is missing`);
    expect(childMessageProblem({ type: 'progress', counters: without(value, key) })).toBe(
      `progress.counters.${key} is missing`,
    );
  });

  test.each(Object.keys(subscriber))("a subscriber's counters without %s are refused", (key) => {
    const value = { ...counters[0], subscribers: { 'consumer-1': without(subscriber, key) } };
    expect(childMessageProblem(status(value))).toBe(`reply.value.subscribers.consumer-1.${key} is missing`);
  });
});

describe('gather replies carry every field of their role', () => {
  test.each(reports.map((r) => [r.role, r] as const))('a whole %s report is taken', (_role, report) => {
    expect(childMessageProblem(gather(report))).toBeUndefined();
  });

  const missing = reports.flatMap((r) => Object.keys(r).map((key) => [r.role, key, r] as const));
  test.each(missing)('a %s report without %s is refused, naming it', (_role, key, report) => {
    expect(childMessageProblem(gather(without(report, key)))).toBe(`reply.value.report.${key} is missing`);
  });

  test('an optional field may be absent but not wrong; deeper fields and resources are checked too', () => {
    const [brokerReport, publisherReport, consumerReport] = reports;
    expect(childMessageProblem(gather({ ...consumerReport, repairedRanges: [[3, 4]] }))).toBeUndefined();
    expect(childMessageProblem(gather({ ...consumerReport, repairedRanges: [[3]] }))).toBe(
      'reply.value.report.repairedRanges[0] is not a list of 2',
    );
    expect(
      childMessageProblem(
        gather({
          ...consumerReport,
          entries: [
            [0, 1, 7],
            [1, 2],
          ],
        }),
      ),
    ).toBe('reply.value.report.entries[1] is not a list of 3');
    expect(
      childMessageProblem(
        gather({
          ...publisherReport,
          history: { keys: [0, 1], values: new Uint32Array(2), deleted: new Uint8Array(2) },
        }),
      ),
    ).toBe('reply.value.report.history.keys is not a Uint32Array');
    const uncounted = {
      ...brokerReport,
      subscribers: { 'consumer-1': without((brokerReport as BrokerReport).subscribers['consumer-1']!, 'marksDropped') },
    };
    expect(childMessageProblem(gather(uncounted))).toBe(
      'reply.value.report.subscribers.consumer-1.marksDropped is missing',
    );
    const blocked = {
      ...brokerReport,
      subscribers: { 'consumer-1': { ...subscriber, blockedWrites: [{ startedAt: 1, bytes: 1, ms: 1 }] } },
    };
    expect(childMessageProblem(gather(blocked))).toMatch(
      /^reply\.value\.report\.subscribers\.consumer-1\.\w+ is missing$/,
    );
    expect(childMessageProblem({ type: 'reply', id: 2, kind: 'gather', value: { report: consumerReport } })).toBe(
      'reply.value.resources is missing',
    );
  });

  test('digest, versions and refusals are checked by kind', () => {
    expect(
      childMessageProblem({
        type: 'reply',
        id: 3,
        kind: 'digest',
        value: { match: true, local: 'a', broker: 'a', brokerOffset: 6, localOffset: 6 },
      }),
    ).toBeUndefined();
    expect(
      childMessageProblem({
        type: 'reply',
        id: 3,
        kind: 'digest',
        value: { match: true, local: 'a', broker: 'a', brokerOffset: 6 },
      }),
    ).toBe('reply.value.localOffset is missing');
    expect(childMessageProblem({ type: 'reply', id: 4, kind: 'versions', value: [0, 1] })).toBe(
      'reply.value is not a Float64Array',
    );
    expect(childMessageProblem({ type: 'refused', id: 5, kind: 'digest' })).toBe('refused.message is missing');
    expect(childMessageProblem({ type: 'hello' })).toBe('its type "hello" is not one a child sends');
  });
});

describe("the relay's shape command", () => {
  test('one shape per direction is taken: a partition, a clear link, a correlated loss with a jittered delay', () => {
    expect(isOrchestratorCommand({ type: 'shape', up: PARTITIONED_LINK, down: PARTITIONED_LINK })).toBe(true);
    expect(isOrchestratorCommand({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK })).toBe(true);
    expect(
      isOrchestratorCommand({
        type: 'shape',
        up: { lossPct: 20, correlationPct: 75, delayMs: 50, jitterMs: 10, rateBytesPerSec: 0 },
        down: CLEAR_LINK,
      }),
    ).toBe(true);
  });

  test.each(['up', 'down'])(
    'a shape without %s, or with a field of it missing or out of range, is refused',
    (direction) => {
      const whole = { type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK };
      expect(isOrchestratorCommand(without(whole, direction))).toBe(false);
      for (const key of Object.keys(CLEAR_LINK))
        expect(isOrchestratorCommand({ ...whole, [direction]: without(CLEAR_LINK, key) })).toBe(false);
      expect(isOrchestratorCommand({ ...whole, [direction]: { ...CLEAR_LINK, lossPct: 101 } })).toBe(false);
      expect(isOrchestratorCommand({ ...whole, [direction]: { ...CLEAR_LINK, correlationPct: -1 } })).toBe(false);
      expect(isOrchestratorCommand({ ...whole, [direction]: { ...CLEAR_LINK, delayMs: '50' } })).toBe(false);
    },
  );
});

test("what a foreign consumer's JSON is read into passes the same guards", () => {
  const read = [
    readForeignMessage({ type: 'progress', counters: { applied: 1, lastOffset: 1 } }),
    readForeignMessage({
      type: 'reply',
      id: 5,
      kind: 'gather',
      value: { report: { applied: 2, lastOffset: 2, entries: [[0, 1, 9]] } },
    }),
    readForeignMessage({ type: 'reply', id: 6, kind: 'digest', value: { match: null, error: 'no broker' } }),
  ];
  for (const r of read) {
    if (!r.ok) throw new Error(r.problem);
    expect(childMessageProblem(r.message)).toBeUndefined();
  }
});
