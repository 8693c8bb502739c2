/**
 * The live view of a run against a real system (systems-run/system-live.ts): a frame of plain
 * lines redrawn in place, so it must fit the terminal, 80×24 the smallest usual one: no line as
 * wide as the terminal (it would wrap, and the redraw would miss its top), and fewer lines than
 * the screen has. And the progress it is drawn from (progress-poll.ts): a frozen probe is never
 * asked for its report (it would answer only once thawed, and the view would stop with it).
 */
import {
  pollProgress,
  systemLiveLines,
  type ConsumerProgress,
  type SystemLiveState,
  type SystemRunObserver,
  type SystemSnapshot,
} from '@state-divergence/orchestrator/systems-internal';

const consumer = (name: string, patch: Partial<ConsumerProgress> = {}): ConsumerProgress => ({
  name,
  state: 'running',
  applied: 1_198,
  relists: 0,
  signals: 0,
  lastSignal: null,
  wrongNow: null,
  ...patch,
});

function stateOf(consumers: ConsumerProgress[]): SystemLiveState {
  return {
    plan: {
      system: 'redis-streams',
      idiom: 'careful',
      consumers: consumers.map((c) => c.name),
      stalls: [{ consumer: 'consumer-3', from: 1, to: 3 }],
      publishEndsAt: 3,
    },
    snapshot: { seconds: 2.4, stage: 'publishing', acknowledged: 1_918, ratePerSec: 801, consumers },
    stalls: new Map([['consumer-3', { frozen: true, at: 1.002 }]]),
  };
}

const three = [
  consumer('consumer-1'),
  consumer('consumer-2'),
  consumer('consumer-3', { state: 'frozen', applied: 797, signals: 1, lastSignal: 'slow-consumer' }),
];

test('80×24: one line per consumer with its state, applied and signals; the publisher; the stall', () => {
  const lines = systemLiveLines(stateOf(three), { columns: 80, rows: 24 });
  expect(lines[0]).toBe('redis-streams (careful): publishing, 2.4 s; publishing until 3 s');
  expect(lines.slice(1, 4)).toEqual([
    'consumer-1 running applied    1198  signals 0',
    'consumer-2 running applied    1198  signals 0',
    'consumer-3 frozen  applied     797  signals 1 (last: slow-consumer)',
  ]);
  expect(lines).toContain('publisher  acknowledged 1918  rate 801/s (last 2 s)');
  expect(lines).toContain('stalls: consumer-3 stalled 1-3 s (frozen at 1.0 s)');
  for (const line of lines) expect(line.length).toBeLessThan(80);
  expect(lines.length).toBeLessThan(24);
});

test('narrower than a line: each is cut one column short of the edge, never wrapped', () => {
  const lines = systemLiveLines(stateOf(three), { columns: 40, rows: 24 });
  expect(lines[3]).toBe('consumer-3 frozen  applied     797  sig');
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(39);
});

test('more consumers than rows: the frozen and signalled listed first, the rest counted on one line', () => {
  const many = Array.from({ length: 40 }, (_, i) =>
    consumer(
      `consumer-${i + 1}`,
      i === 39 ? { state: 'frozen' } : i === 30 ? { signals: 1, lastSignal: 'relist' } : {},
    ),
  );
  const lines = systemLiveLines(stateOf(many), { columns: 80, rows: 24 });
  expect(lines.length).toBe(23);
  expect(lines.some((l) => l.startsWith('consumer-40 frozen'))).toBe(true);
  expect(lines.some((l) => l.startsWith('consumer-31 running') && l.includes('(last: relist)'))).toBe(true);
  const listed = lines.filter((l) => l.startsWith('consumer-')).length;
  expect(lines).toContain(`+ ${40 - listed} more, 0 of them done: no room for their rows`);
  for (const line of lines) expect(line.length).toBeLessThan(80);
});

test('before the first snapshot: every consumer at 0, "starting"', () => {
  const lines = systemLiveLines({ ...stateOf(three), snapshot: undefined, stalls: new Map() });
  expect(lines[0]).toBe('redis-streams (careful): starting; publishing until 3 s');
  expect(lines[3]).toBe('consumer-3 running applied       0  signals 0');
  expect(lines).toContain('stalls: consumer-3 stalled 1-3 s');
});

test('the poll: a frozen probe is not asked; a thawed one is again; stop() ends the asking', async () => {
  const asked: string[] = [];
  const probe = (name: string, applied: number) => ({
    pid: 0,
    freeze() {},
    thaw() {},
    stop: async () => {},
    kill: async () => {},
    report: async () => {
      asked.push(name);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return {
        entries: [],
        applied,
        highestSeq: applied,
        appliedSeqs: [],
        appliedAtMs: [],
        relists: 0,
        signals: [],
        copy: new Map(),
      };
    },
  });
  const probes = new Map([
    ['consumer-1', probe('consumer-1', 10)],
    ['consumer-2', probe('consumer-2', 20)],
  ]);
  const snapshots: SystemSnapshot[] = [];
  const stalls: string[] = [];
  const observer: SystemRunObserver = {
    started: () => {},
    stall: (name, frozen) => void stalls.push(`${name} ${frozen ? 'frozen' : 'thawed'}`),
    snapshot: (s) => void snapshots.push(s),
    done: () => {},
  };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 550)); // the poll asks every 500 ms
  const poll = pollProgress(probes, () => 42, Date.now(), observer);
  // Its first round asks both, at once; then consumer-2 is frozen for one round, thawed for the next.
  poll.frozen('consumer-2', true);
  await tick();
  const whileFrozen = [...asked];
  poll.frozen('consumer-2', false);
  await tick();
  await poll.stop();
  expect(whileFrozen).toEqual(['consumer-1', 'consumer-2', 'consumer-1']);
  expect(asked).toEqual(['consumer-1', 'consumer-2', 'consumer-1', 'consumer-1', 'consumer-2']);
  expect(stalls).toEqual(['consumer-2 frozen', 'consumer-2 thawed']);
  const last = snapshots.at(-1)!;
  expect(last.acknowledged).toBe(42);
  expect(last.consumers.map((c) => [c.name, c.state, c.applied])).toEqual([
    ['consumer-1', 'running', 10],
    ['consumer-2', 'running', 20],
  ]);
  const settled = asked.length;
  await tick();
  expect(asked).toHaveLength(settled); // stopped: asks no more
  poll.drained(
    [...probes.values()].map((_, i) => ({
      entries: [],
      applied: 30 + i,
      highestSeq: 0,
      appliedSeqs: [],
      appliedAtMs: [],
      relists: 0,
      signals: [{ kind: 'relist' as const, atMs: 0 }],
    })),
    [0, 3],
  );
  expect(snapshots.at(-1)!.consumers.map((c) => [c.state, c.applied, c.wrongNow, c.lastSignal])).toEqual([
    ['done', 30, 0, 'relist'],
    ['running', 31, 3, 'relist'],
  ]);
});
