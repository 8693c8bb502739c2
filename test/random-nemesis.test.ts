/**
 * --nemesis random: the drawn schedule is a pure function of (seed, options), valid by the written
 * schedule's own rules, and printed as flags that parse back to the very same faults.
 */
import fc from 'fast-check';
import { normalizeOptions, type Fault, type Options, type RawOptions } from '@state-divergence/orchestrator';
import { tty, usage } from './helpers/usage.js';

const BROKER = 'broker';
const PUBLISHER = 'publisher';

/** What a shell and yargs make of the printed flags: `--stall a@1-2 --loss b@2-3:20` → { stall: ['a@1-2'], loss:
 * ['b@2-3:20'] }. */
function parseFlags(flags: string): RawOptions {
  const words = flags.split(' ');
  const raw: Record<string, string[]> = {};
  for (let i = 0; i < words.length; i += 2) {
    const flag = words[i]!;
    expect(flag).toMatch(/^--(stall|slow|crash|partition|loss|delay)$/);
    (raw[flag.slice(2)] ??= []).push(words[i + 1]!);
  }
  return raw;
}

/** Where publishing ends for these options (the written schedule's rule, restated here to check the draw against it).
 * */
function publishingEnd(o: Options): number {
  if (o.publishUntil !== null) return o.publishUntil;
  return Math.max(
    ...o.faults.map((f) => f.to),
    ...o.faults.filter((f) => f.consumer === BROKER).map((f) => f.to + o.duration),
  );
}

/** The most consumers faulted at one instant (a window is [from, to)). */
function mostFaultedAtOnce(faults: Fault[], consumers: string[]): number {
  const ofConsumers = faults.filter((f) => consumers.includes(f.consumer));
  return Math.max(
    0,
    ...ofConsumers.map(
      (a) => new Set(ofConsumers.filter((b) => b.from <= a.from && a.from < b.to).map((b) => b.consumer)).size,
    ),
  );
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `consumer-${i + 1}`);

/** A run's shape as someone might ask for it beside --nemesis random. */
const runShape = fc
  .record(
    {
      seed: fc.integer({ min: 0, max: 0xffff_ffff }),
      consumers: fc.integer({ min: 2, max: 9 }),
      duration: fc.constantFrom(0.2, 0.5, 1, 2, 4),
      publishUntil: fc.option(
        fc.integer({ min: 10, max: 600 }).map((t) => t / 10),
        { nil: undefined },
      ),
      idleTimeout: fc.option(fc.constantFrom(1, 1.5, 3, 30), { nil: undefined }),
      joinLate: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
      foreign: fc.boolean(),
      mode: fc.constantFrom('lossy', 'lossless', 'resync', 'durable', 'both', 'all'),
    },
    { requiredKeys: ['seed', 'consumers', 'duration', 'foreign', 'mode'] },
  )
  .map((s): RawOptions => ({
    nemesis: 'random',
    seed: s.seed,
    consumers: s.consumers,
    duration: s.duration,
    mode: s.mode,
    ...(s.publishUntil !== undefined && { publishUntil: s.publishUntil }),
    ...(s.idleTimeout !== undefined && { idleTimeout: s.idleTimeout }),
    ...(s.joinLate !== undefined && s.joinLate <= s.consumers && { joinLate: `consumer-${s.joinLate}` }),
    ...(s.foreign && { consumerCmd: ['consumer-1=node some-consumer.js'] }),
  }));

describe('--nemesis random', () => {
  test('every drawn schedule is one a person could have written: its printed flags pass the written validation and parse back to the same faults', () => {
    fc.assert(
      fc.property(runShape, (raw) => {
        const drawn = normalizeOptions(raw, tty);
        expect(drawn.nemesis).toEqual({ kind: 'random', seed: raw.seed, flags: expect.any(String) });
        expect(drawn.faults.length).toBeGreaterThan(0);
        const { nemesis: _, ...rest } = raw;
        const written = normalizeOptions({ ...rest, ...parseFlags(drawn.nemesis!.flags) }, tty);
        expect(written.nemesis).toBeNull();
        expect(written.faults).toEqual(drawn.faults);
        expect({ ...written, nemesis: drawn.nemesis }).toEqual(drawn);
      }),
      { numRuns: 100 },
    );
  });

  test('a broker outage drawn to start at the instant a crashed consumer restarts is refused, as written (fast-check found these two)', () => {
    // The restart at 3.87 s lies in [3.87, 3.98): checking the outage only against faults still running after 3.87
    // missed it.
    for (const raw of [
      { nemesis: 'random', seed: 0, consumers: 2, duration: 0.2, mode: 'lossy', publishUntil: 4.1 },
      { nemesis: 'random', seed: 2485282625, consumers: 3, duration: 0.2, mode: 'lossy', publishUntil: 52.4 },
    ]) {
      const { faults } = normalizeOptions(raw, tty);
      for (const outage of faults.filter((f) => f.consumer === BROKER)) {
        expect(
          faults.filter((f) => f.kind === 'crash' && f.consumer !== BROKER && f.to >= outage.from && f.to < outage.to),
        ).toEqual([]);
      }
    }
  });

  test('never every consumer at once, windows inside publishing, never the late joiner, no broker restart beside a foreign consumer', () => {
    fc.assert(
      fc.property(runShape, (raw) => {
        const o = normalizeOptions(raw, tty);
        const consumers = names(o.consumers);
        expect(mostFaultedAtOnce(o.faults, consumers)).toBeLessThan(o.consumers);
        const end = publishingEnd(o);
        const start = o.publishUntil === null ? o.duration : Math.min(o.duration, o.publishUntil / 2);
        for (const f of o.faults) {
          expect(f.from).toBeGreaterThan(0);
          expect(f.from).toBeGreaterThanOrEqual(start);
          expect(f.to).toBeLessThanOrEqual(o.publishUntil ?? 3 * o.duration);
          if (f.consumer === BROKER) expect(f.to).toBeLessThan(end);
          expect(f.consumer).not.toBe(o.joinLate);
          expect([...consumers, BROKER, PUBLISHER]).toContain(f.consumer);
        }
        if (o.consumerCmd.length > 0) expect(o.faults.filter((f) => f.consumer === BROKER)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test('the same seed and options give the same schedule; the mode, the rate and the keys do not change it (every column runs the same faults)', () => {
    fc.assert(
      fc.property(
        runShape,
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 50_000 }),
        (raw, rate, keys) => {
          const once = normalizeOptions(raw, tty).faults;
          expect(normalizeOptions(raw, tty).faults).toEqual(once);
          expect(normalizeOptions({ ...raw, mode: 'lossy', rate, keys }, tty).faults).toEqual(once);
        },
      ),
      { numRuns: 40 },
    );
    const schedules = new Set(
      Array.from(
        { length: 50 },
        (_, i) => normalizeOptions({ nemesis: 'random', seed: i + 1, duration: 1 }, tty).nemesis!.flags,
      ),
    );
    expect(schedules.size).toBe(50); // and another seed, another schedule
  });

  test("the seeds 1-50 at --duration 1 between them draw every kind, the publisher's link and the broker too", () => {
    const drawn = Array.from(
      { length: 50 },
      (_, i) => normalizeOptions({ nemesis: 'random', seed: i + 1, duration: 1, mode: 'all' }, tty).faults,
    ).flat();
    const kinds = new Set(
      drawn.map((f) => (f.consumer === BROKER || f.consumer === PUBLISHER ? `${f.kind} ${f.consumer}` : f.kind)),
    );
    for (const kind of ['stall', 'slow', 'crash', 'crash broker', 'partition', 'loss', 'delay', 'partition publisher'])
      expect(kinds).toContain(kind);
  });

  test('the number of faults follows the window: ~1.5 a phase, spread over all of a long --publish-until', () => {
    const seed = (duration: number, publishUntil?: number) =>
      normalizeOptions(
        { nemesis: 'random', seed: 9, duration, ...(publishUntil !== undefined && { publishUntil }) },
        tty,
      ).faults;
    expect(seed(1).length).toBeLessThanOrEqual(3); // [d, 3d): three drawn, fewer if the validation refused every try
    const long = seed(1, 300);
    expect(long.length).toBeGreaterThan(0.8 * 1.5 * 299);
    expect(long.length).toBeLessThanOrEqual(Math.round(1.5 * 299));
    // Every tenth of the window holds faults: a soak's faults do not bunch at its start.
    for (let decile = 0; decile < 10; decile++) {
      const from = 1 + decile * 29.9;
      expect(long.filter((f) => f.from >= from && f.from < from + 29.9).length).toBeGreaterThan(30);
    }
    // A longer phase, as many faults per phase: at 5 s phases over 300 s, ~90.
    expect(seed(5, 300).length).toBeGreaterThan(0.8 * 1.5 * 59);
  });

  test('at 256 consumers it faults at most four of them (each faulted one is a process of its own)', () => {
    const o = normalizeOptions({ nemesis: 'random', seed: 4, consumers: 256, duration: 1, publishUntil: 60 }, tty);
    expect(new Set(o.faults.map((f) => f.consumer).filter((c) => c.startsWith('consumer-'))).size).toBeLessThanOrEqual(
      4,
    );
  });

  test('bad input is one line: written faults beside it, another generator, nothing that fits; another bad flag keeps its own message', () => {
    expect(usage({ nemesis: 'random', stall: ['consumer-1'], loss: ['consumer-2@1-2:5'] })).toBe(
      '--nemesis random draws every fault itself: drop --stall, --loss (or drop --nemesis and give the flags it ' +
        'printed, edited)',
    );
    expect(usage({ nemesis: 'chaos' })).toBe('--nemesis must be one of random (faults drawn from --seed), got chaos');
    expect(usage({ nemesis: 'random', seed: 3, duration: 1, publishUntil: 0.1 })).toBe(
      '--nemesis random drew no fault that fits 0.05-0.1 s; give a longer --publish-until',
    );
    expect(usage({ nemesis: 'random', rate: -1 })).toMatch(/^--rate must be a positive number/);
    expect(usage({ nemesis: 'random', seed: 1.5 })).toMatch(/^--seed must be an integer/);
    expect(usage({ nemesis: 'random', publishUntil: 0 })).toMatch(/^--publish-until must be/);
    expect(usage({ nemesis: 'random', joinLate: 'consumer-7' })).toMatch(
      /^--join-late consumer-7 is not a consumer of this run/,
    );
  });
});
