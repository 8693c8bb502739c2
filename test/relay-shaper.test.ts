/**
 * The fault relay's decisions, without sockets: which datagrams a shaped direction drops, how long
 * it holds the others, and the queue that releases them in time order from one timer.
 */
import { CLEAR_LINK, MAX_LINK_DELAY_MS, PARTITIONED_LINK, type LinkShape } from '@state-divergence/protocol';
import { DelayLine, Direction, HeldQueue, LinkShaper, type Timers } from '@state-divergence/relay/internal';
import { createPrng } from '@state-divergence/runtime';

const uniform = (seed: number): (() => number) => {
  const next = createPrng(seed);
  return () => next() / 2 ** 32;
};
const shaped = (shape: Partial<LinkShape>, seed = 1): LinkShaper => {
  const shaper = new LinkShaper(uniform(seed));
  shaper.reshape({ ...CLEAR_LINK, ...shape });
  return shaper;
};
/** n decisions: true for a drop. */
const drops = (shaper: LinkShaper, n: number): boolean[] => Array.from({ length: n }, () => shaper.next() === null);
const share = (fates: boolean[]): number => fates.filter(Boolean).length / fates.length;
/** Mean length of the runs of consecutive drops. */
const meanBurst = (fates: boolean[]): number => {
  const bursts = fates.reduce((count, dropped, i) => count + (dropped && !fates[i - 1] ? 1 : 0), 0);
  return fates.filter(Boolean).length / bursts;
};

describe('loss', () => {
  test('a clear link drops nothing and holds nothing; a partition drops everything, whatever came before', () => {
    expect(drops(shaped({}), 10_000).some(Boolean)).toBe(false);
    expect(Array.from({ length: 100 }, () => shaped({}).next())).toEqual(Array(100).fill(0));
    const shaper = shaped({ lossPct: 30, correlationPct: 90 });
    drops(shaper, 1_000);
    shaper.reshape(PARTITIONED_LINK);
    expect(drops(shaper, 10_000).every(Boolean)).toBe(true);
    shaper.reshape(CLEAR_LINK);
    expect(drops(shaper, 10_000).some(Boolean)).toBe(false);
  });

  // 100,000 draws: the share's standard deviation is below 0.5 point even at 75 % correlation
  // (sqrt(p(1-p)/n · (1+c)/(1-c)) = 0.34 point at p = 20 %), so ±1.5 point cannot fail by chance.
  test.each([
    [5, 0],
    [20, 0],
    [20, 75],
    [50, 50],
  ])('loss %i %% with %i %% correlation drops that share over 100,000 seeded datagrams', (lossPct, correlationPct) => {
    for (const seed of [1, 2, 3])
      expect(Math.abs(share(drops(shaped({ lossPct, correlationPct }, seed), 100_000)) - lossPct / 100)).toBeLessThan(
        0.015,
      );
  });

  test('correlation makes bursts longer, as 1 / ((1 - c)(1 - p)) says: 1.25 datagrams at 20 %, 5 at 20 % with 75 % correlation', () => {
    const independent = meanBurst(drops(shaped({ lossPct: 20 }), 100_000));
    const correlated = meanBurst(drops(shaped({ lossPct: 20, correlationPct: 75 }), 100_000));
    expect(independent).toBeGreaterThan(1.15);
    expect(independent).toBeLessThan(1.35);
    expect(correlated).toBeGreaterThan(4.5);
    expect(correlated).toBeLessThan(5.5);
  });

  test('the same seed repeats the same fates; another seed does not', () => {
    const fates = (seed: number) =>
      drops(shaped({ lossPct: 20, correlationPct: 50, delayMs: 30, jitterMs: 20 }, seed), 1_000);
    expect(fates(7)).toEqual(fates(7));
    expect(fates(7)).not.toEqual(fates(8));
  });
});

describe('delay', () => {
  const holds = (shape: Partial<LinkShape>, n = 10_000): number[] => {
    const shaper = shaped(shape);
    return Array.from({ length: n }, () => shaper.next()!);
  };

  test('without jitter every datagram is held exactly the delay', () => {
    expect(new Set(holds({ delayMs: 50 }))).toEqual(new Set([50]));
  });

  test('jitter spreads holds uniformly over delay ± jitter, never below 0 nor above the largest delay', () => {
    const spread = holds({ delayMs: 50, jitterMs: 10 });
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(40);
    expect(Math.max(...spread)).toBeLessThanOrEqual(60);
    // Uniform: both halves of the range are used about equally, and its ends nearly reached.
    expect(spread.filter((ms) => ms < 50).length / spread.length).toBeGreaterThan(0.45);
    expect(Math.min(...spread)).toBeLessThan(41);
    expect(Math.max(...spread)).toBeGreaterThan(59);
    expect(Math.min(...holds({ delayMs: 5, jitterMs: 10 }))).toBe(0);
    expect(Math.max(...holds({ delayMs: MAX_LINK_DELAY_MS, jitterMs: 100 }))).toBe(MAX_LINK_DELAY_MS);
  });
});

describe('the held queue', () => {
  test('gives items back in order of their due time, ties in arrival order', () => {
    const queue = new HeldQueue<string>();
    const dues = [30, 10, 20, 10, 50, 0, 20, 40];
    dues.forEach((due, i) => queue.push(due, `${due}#${i}`));
    expect(queue.size).toBe(dues.length);
    expect(queue.nextDue()).toBe(0);
    const out = Array.from({ length: dues.length }, () => queue.pop());
    expect(out).toEqual(['0#5', '10#1', '10#3', '20#2', '20#6', '30#0', '40#7', '50#4']);
    expect(queue.pop()).toBeUndefined();
    expect(queue.nextDue()).toBeUndefined();
  });

  test('each pop is the earliest due held at that moment, over many random pushes and pops', () => {
    const random = uniform(3);
    const queue = new HeldQueue<number>();
    const held: number[] = [];
    const popEarliest = (): void => {
      const earliest = Math.min(...held);
      expect(queue.nextDue()).toBe(earliest);
      expect(queue.pop()).toBe(earliest);
      held.splice(held.indexOf(earliest), 1);
    };
    for (let i = 0; i < 3_000; i++) {
      const due = Math.floor(random() * 1_000);
      queue.push(due, due);
      held.push(due);
      if (random() < 0.3) popEarliest();
    }
    while (held.length > 0) popEarliest();
    expect(queue.size).toBe(0);
  });
});

/** A clock that moves only when told to, with the timers set on it. */
class FakeTimers implements Timers {
  private clock = 0;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private ids = 0;
  /** Most timers pending at once. */
  maxPending = 0;
  now = (): number => this.clock;
  set = (callback: () => void, ms: number): number => {
    this.timers.set(++this.ids, { at: this.clock + ms, callback });
    this.maxPending = Math.max(this.maxPending, this.timers.size);
    return this.ids;
  };
  clear = (handle: unknown): void => void this.timers.delete(handle as number);
  advance(ms: number): void {
    const until = this.clock + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.clock = due[1].at;
      due[1].callback();
    }
    this.clock = until;
  }
}

describe('the delay line', () => {
  test('releases each item at its time from one timer, whatever it holds', () => {
    const timers = new FakeTimers();
    const released: Array<[string, number]> = [];
    const line = new DelayLine<string>((item) => released.push([item, timers.now()]), timers);
    line.hold('a', 50);
    line.hold('b', 20);
    timers.advance(10);
    line.hold('c', 5);
    line.hold('d', 100);
    expect(line.held).toBe(4);
    timers.advance(200);
    expect(released).toEqual([
      ['c', 15],
      ['b', 20],
      ['a', 50],
      ['d', 110],
    ]);
    expect(timers.maxPending).toBe(1);
    expect(line.held).toBe(0);
  });

  test('clear forgets what is held and its timer', () => {
    const timers = new FakeTimers();
    const released: string[] = [];
    const line = new DelayLine<string>((item) => released.push(item), timers);
    line.hold('a', 50);
    line.clear();
    timers.advance(100);
    expect(released).toEqual([]);
    expect(line.held).toBe(0);
  });
});

describe('a direction', () => {
  const datagram = (bytes: number): Buffer => Buffer.alloc(bytes);

  test('counts what it drops and forwards, bytes forwarded, and the most held at once; a held datagram counts when it leaves', () => {
    const timers = new FakeTimers();
    const direction = new Direction(uniform(5), timers);
    const sent: number[] = [];
    const out = (d: Buffer): void => void sent.push(d.length);
    direction.carry(datagram(100), out);
    direction.reshape(PARTITIONED_LINK);
    direction.carry(datagram(200), out);
    direction.carry(datagram(200), out);
    direction.reshape({ ...CLEAR_LINK, delayMs: 30 });
    for (let i = 0; i < 5; i++) direction.carry(datagram(10 + i), out);
    expect(direction.counters).toEqual({ forwarded: 1, dropped: 2, bytes: 100, maxHeld: 5 });
    timers.advance(30);
    expect(sent).toEqual([100, 10, 11, 12, 13, 14]);
    expect(direction.counters).toEqual({ forwarded: 6, dropped: 2, bytes: 160, maxHeld: 5 });
  });

  test('a new shape applies from the next datagram: held ones still leave at their time', () => {
    const timers = new FakeTimers();
    const direction = new Direction(uniform(5), timers);
    const sent: string[] = [];
    direction.reshape({ ...CLEAR_LINK, delayMs: 50 });
    direction.carry(Buffer.from('held'), (d) => sent.push(d.toString()));
    direction.reshape(PARTITIONED_LINK);
    direction.carry(Buffer.from('dropped'), (d) => sent.push(d.toString()));
    timers.advance(49);
    expect(sent).toEqual([]);
    timers.advance(1);
    expect(sent).toEqual(['held']);
    expect(direction.counters).toMatchObject({ forwarded: 1, dropped: 1 });
  });
});
