/**
 * The nemesis against a fake child: a slowed consumer's duty cycle must not reach
 * past the end of its window, and a freeze or a thaw counts only once confirmed
 * (the fake's `confirm` is answered by the test; a real process's is
 * freeze-confirm.test.ts).
 */
import type { ChildHandle } from '@state-divergence/orchestrator';
import { Nemesis, EventLog } from '@state-divergence/orchestrator/internal';

type Confirmation = Awaited<ReturnType<ChildHandle['confirm']>>;
/** A confirmation decided as it is given (the nemesis dates its event by `decidedAt`). */
const confirmed = (waitedMs: number): Confirmation => ({
  outcome: 'confirmed',
  waitedMs,
  decidedAt: performance.now(),
});

/**
 * Just enough of a child for the nemesis: it records what it was sent. `confirm` answers with
 * `answer` (at once, unless the test holds it back); `stoppedNow` says `stopped` (by default:
 * whether it was sent SIGSTOP last).
 */
function fakeChild(name: string, options: { answer?: () => Promise<Confirmation>; stopped?: () => boolean } = {}) {
  const signals: string[] = [];
  let frozen = false;
  const child = {
    name,
    pid: 4242,
    alive: true,
    get frozen() {
      return frozen;
    },
    freeze: () => {
      frozen = true;
      signals.push('SIGSTOP');
    },
    thaw: () => {
      frozen = false;
      signals.push('SIGCONT');
    },
    confirm: options.answer ?? (() => Promise.resolve(confirmed(3))),
    stoppedNow: options.stopped ?? (() => frozen),
  };
  return { child: child as unknown as ChildHandle, signals };
}

/** A confirmation the test answers when it chooses. */
function heldBack() {
  let answer: (c: Confirmation) => void = () => {};
  const pending = new Promise<Confirmation>((resolve) => (answer = resolve));
  return { pending: () => pending, answer };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a stall that starts where a slow window ends stays frozen: the last cycle's SIGCONT is cancelled, not left to fire", async () => {
  const eventLog = new EventLog(() => 0);
  const nemesis = new Nemesis(eventLog);
  const { child, signals } = fakeChild('consumer-3');
  nemesis.slow(child, 90); // stopped for 90 ms of every 100: a SIGCONT is pending right now
  nemesis.unslow('consumer-3');
  await nemesis.freeze([child]);
  await sleep(250); // past the cancelled SIGCONT and two more periods
  expect(child.frozen).toBe(true);
  expect(nemesis.activeFault('consumer-3')).toBe('stall');
  expect(signals).toEqual(['SIGSTOP', 'SIGCONT', 'SIGSTOP']);
  await nemesis.thaw([child]);
  expect(eventLog.events.map((e) => e.type)).toEqual(['slow', 'unslow', 'freeze', 'thaw']);
});

test('a slowed consumer is stopped for its share of every period, and continued when the window ends', async () => {
  const nemesis = new Nemesis(new EventLog(() => 0));
  const { child, signals } = fakeChild('consumer-2');
  nemesis.slow(child, 50);
  await sleep(330);
  nemesis.unslow('consumer-2');
  expect(child.frozen).toBe(false);
  const stops = signals.filter((s) => s === 'SIGSTOP').length;
  expect(stops).toBeGreaterThanOrEqual(3); // one per 100 ms period
  expect(signals.at(-1)).toBe('SIGCONT');
  nemesis.stop(); // nothing left to end
});

test('a slow counts the periods its SIGSTOP had taken effect by their SIGCONT: one read each, no wait', async () => {
  const eventLog = new EventLog(() => 0);
  const nemesis = new Nemesis(eventLog);
  let reads = 0;
  // Seen stopped at every other SIGCONT: the others' stop never took effect (their SIGCONT cancels it).
  const { child, signals } = fakeChild('consumer-2', { stopped: () => reads++ % 2 === 0 });
  nemesis.slow(child, 50);
  await sleep(330);
  const tally = nemesis.unslow('consumer-2')!;
  const stops = signals.filter((s) => s === 'SIGSTOP').length;
  expect(tally.periods).toBe(stops);
  expect(reads).toBe(stops); // one read per period, the last one's at unslow
  expect(tally.stoppedPeriods).toBe(Math.ceil(stops / 2));
  expect(eventLog.events.at(-1)).toMatchObject({
    type: 'unslow',
    consumer: 'consumer-2',
    periods: stops,
    stoppedPeriods: Math.ceil(stops / 2),
  });
});

test('a freeze is recorded, and the consumer STALLED, only once its stop is confirmed; its thaw stops STALLED before the SIGCONT, and is recorded once confirmed', async () => {
  // The run's clock is the real one, so the record's date can be checked against the answer's own
  // moment whatever the machine's load put between the answer and the record (7.5 ms once, loaded).
  const t0 = performance.now();
  const eventLog = new EventLog(() => performance.now() - t0);
  const nemesis = new Nemesis(eventLog);
  const stop = heldBack();
  let answer = stop.pending;
  const { child, signals } = fakeChild('consumer-3', { answer: () => answer() });
  const freezing = nemesis.freeze([child]);
  expect(signals).toEqual(['SIGSTOP']);
  await sleep(20);
  expect(nemesis.activeFault('consumer-3')).toBeNull(); // sent, not yet seen to take effect
  expect(eventLog.events).toEqual([]);
  const stopSeen = confirmed(40);
  stop.answer(stopSeen);
  const [frozen] = await freezing;
  expect(frozen).toMatchObject({ confirmed: true, waitedMs: 40, wallMs: expect.any(Number) });
  expect(nemesis.activeFault('consumer-3')).toBe('stall');
  // Dated when /proc showed it (the answer's moment), not when the record ran; in tenths of a ms.
  expect(eventLog.events).toEqual([
    { at: expect.any(Number), type: 'freeze', consumer: 'consumer-3', pid: 4242, waitedMs: 40 },
  ]);
  expect(
    Math.abs(eventLog.events[0]!.at - (stopSeen.outcome === 'confirmed' ? stopSeen.decidedAt - t0 : NaN)),
  ).toBeLessThanOrEqual(0.2);

  const cont = heldBack();
  answer = cont.pending;
  const thawing = nemesis.thaw([child]);
  expect(signals).toEqual(['SIGSTOP', 'SIGCONT']);
  expect(nemesis.activeFault('consumer-3')).toBeNull(); // no longer STALLED from the SIGCONT on
  expect(eventLog.events).toHaveLength(1);
  const contSeen = confirmed(1);
  cont.answer(contSeen);
  await thawing;
  expect(eventLog.events.at(-1)).toEqual({
    at: expect.any(Number),
    type: 'thaw',
    consumer: 'consumer-3',
    pid: 4242,
    waitedMs: 1,
  });
  expect(
    Math.abs(eventLog.events.at(-1)!.at - (contSeen.outcome === 'confirmed' ? contSeen.decidedAt - t0 : NaN)),
  ).toBeLessThanOrEqual(0.2);
});

test("a freeze's and a thaw's event is dated when /proc showed it, not when the nemesis got to run after: its time less waitedMs is the signal's", async () => {
  let clock = 1_040;
  const eventLog = new EventLog(() => clock);
  const nemesis = new Nemesis(eventLog);
  // Decided 30 ms before the continuation that records it ran (a busy machine or a GC in between).
  const decidedLate = (): Confirmation => ({ outcome: 'confirmed', waitedMs: 5, decidedAt: performance.now() - 30 });
  const { child } = fakeChild('consumer-3', { answer: () => Promise.resolve(decidedLate()) });
  await nemesis.freeze([child]);
  clock = 3_040;
  await nemesis.thaw([child]);
  const [freeze, thaw] = eventLog.events;
  expect([freeze?.type, thaw?.type]).toEqual(['freeze', 'thaw']);
  // 30 ms back, and the microseconds from the answer to the record, in tenths.
  expect(freeze!.at).toBeLessThanOrEqual(1_010);
  expect(freeze!.at).toBeGreaterThanOrEqual(1_009);
  expect(thaw!.at).toBeLessThanOrEqual(3_010);
  expect(thaw!.at).toBeGreaterThanOrEqual(3_009);
  expect(eventLog.events).toMatchObject([{ waitedMs: 5 }, { waitedMs: 5 }]);
});

test('a consumer that exits before its SIGSTOP takes effect is not frozen: nothing recorded, no thaw later; one never seen stopped fails the run, naming it', async () => {
  const eventLog = new EventLog(() => 0);
  const nemesis = new Nemesis(eventLog);
  const { child: dying } = fakeChild('consumer-2', {
    answer: () => Promise.resolve({ outcome: 'gone', waitedMs: 12 }),
  });
  expect(await nemesis.freeze([dying])).toMatchObject([{ confirmed: false, waitedMs: 12 }]);
  expect(nemesis.activeFault('consumer-2')).toBeNull();
  expect(await nemesis.thaw([dying])).toEqual([]);
  expect(eventLog.events).toEqual([]);

  const { child: stuck } = fakeChild('consumer-3', {
    answer: () => Promise.resolve({ outcome: 'timeout', waitedMs: 5_000, states: { 4242: ['R', 'T'] } }),
  });
  await expect(nemesis.freeze([stuck])).rejects.toMatchObject({
    code: 'E_SIGNAL',
    message:
      "consumer-3 (pid 4242) was sent SIGSTOP and is not stopped (state T) after 5.0 s; its threads' states: " +
      'pid 4242: RT',
  });
  expect(nemesis.activeFault('consumer-3')).toBeNull();
});

test("a broker crash: SIGKILL, the broker's fault while it is away, and each successor counted as it comes back", () => {
  let clock = 0;
  const eventLog = new EventLog(() => clock);
  const nemesis = new Nemesis(eventLog);
  const killed: number[] = [];
  const broker = (pid: number) =>
    ({ name: 'broker', pid, kill: () => void killed.push(pid) }) as unknown as ChildHandle<'broker'>;
  expect(nemesis.brokerAway).toBe(false);
  nemesis.crashBroker(broker(100));
  expect(killed).toEqual([100]);
  expect(nemesis.brokerAway).toBe(true);
  expect(nemesis.activeFault('broker')).toBe('crash');
  clock = 500;
  nemesis.brokerRestarted(broker(101));
  expect(nemesis.brokerAway).toBe(false);
  expect(nemesis.activeFault('broker')).toBeNull();
  clock = 900;
  nemesis.crashBroker(broker(101));
  nemesis.brokerRestarted(broker(102));
  expect(eventLog.events).toEqual([
    { at: 0, type: 'broker-crash', pid: 100 },
    { at: 500, type: 'broker-restart', pid: 101, restarts: 1 },
    { at: 900, type: 'broker-crash', pid: 101 },
    { at: 900, type: 'broker-restart', pid: 102, restarts: 2 },
  ]);
});
