/**
 * The nemesis's timers, against a fake child: a slowed consumer's duty cycle
 * must not reach past the end of its window.
 */
import type { ChildHandle } from '@state-divergence/orchestrator';
import { Nemesis, Timeline } from '@state-divergence/orchestrator/internal';

/** Just enough of a child for the nemesis: it records what it was sent. */
function fakeChild(name: string) {
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
  };
  return { child: child as unknown as ChildHandle, signals };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a stall that starts where a slow window ends stays frozen: the last cycle\'s SIGCONT is cancelled, not left to fire', async () => {
  const timeline = new Timeline(() => 0);
  const nemesis = new Nemesis(timeline);
  const { child, signals } = fakeChild('consumer-3');
  nemesis.slow(child, 90); // stopped for 90 ms of every 100: a SIGCONT is pending right now
  nemesis.unslow('consumer-3');
  nemesis.freeze([child]);
  await sleep(250); // past the cancelled SIGCONT and two more periods
  expect(child.frozen).toBe(true);
  expect(nemesis.activeFault('consumer-3')).toBe('stall');
  expect(signals).toEqual(['SIGSTOP', 'SIGCONT', 'SIGSTOP']);
  nemesis.thaw([child]);
  expect(timeline.events.map((e) => e.type)).toEqual(['slow', 'unslow', 'freeze', 'thaw']);
});

test('a slowed consumer is stopped for its share of every period, and continued when the window ends', async () => {
  const nemesis = new Nemesis(new Timeline(() => 0));
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

test('a broker crash: SIGKILL, the broker\'s fault while it is away, and each successor counted as it comes back', () => {
  let clock = 0;
  const timeline = new Timeline(() => clock);
  const nemesis = new Nemesis(timeline);
  const killed: number[] = [];
  const broker = (pid: number) => ({ name: 'broker', pid, kill: () => void killed.push(pid) }) as unknown as ChildHandle<'broker'>;
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
  expect(timeline.events).toEqual([
    { at: 0, type: 'broker-crash', pid: 100 },
    { at: 500, type: 'broker-restart', pid: 101, restarts: 1 },
    { at: 900, type: 'broker-crash', pid: 101 },
    { at: 900, type: 'broker-restart', pid: 102, restarts: 2 },
  ]);
});
