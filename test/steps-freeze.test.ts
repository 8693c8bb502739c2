/**
 * What the plan does around a freeze, against fake children whose stop the test confirms when it
 * chooses: nothing says "frozen" (the log, the broker's bytes at the freeze, the fault window and
 * the publisher's count in it) until the stop is confirmed, and a thaw's recovery counts from its
 * confirmation.
 */
import { PlanSteps, EventLog } from '@state-divergence/orchestrator/internal';

type Steps = ConstructorParameters<typeof PlanSteps>[0];
type Confirmation = { outcome: 'confirmed'; waitedMs: number; decidedAt: number };

/** A confirmation the test answers when it chooses. */
function heldBack() {
  let answer: (c: Confirmation) => void = () => {};
  const pending = new Promise<Confirmation>((resolve) => (answer = resolve));
  return { pending, answer };
}

function fakeCluster() {
  let published = 0;
  let confirmation = heldBack();
  const asked: string[] = [];
  const quiet = { send: () => {}, on: () => {} };
  const consumer = (name: string) => ({
    ...quiet,
    name,
    pid: 100,
    alive: true,
    frozen: false,
    freeze() {
      this.frozen = true;
    },
    thaw() {
      this.frozen = false;
    },
    confirm: () => confirmation.pending,
    stoppedNow: () => false,
  });
  const cluster = {
    broker: {
      ...quiet,
      name: 'broker',
      status: () => (asked.push('broker bytesSent'), Promise.resolve({ at: Date.now(), subscribers: {} })),
    },
    publisher: {
      ...quiet,
      name: 'publisher',
      status: () => (asked.push(`publisher at ${published}`), Promise.resolve({ published })),
    },
    consumers: [consumer('consumer-1'), consumer('consumer-3')],
    pools: [],
    relays: new Map(),
    rogue: undefined,
  };
  return {
    cluster,
    asked,
    publish: (n: number) => void (published = n),
    confirmNow: (waitedMs: number) =>
      confirmation.answer({ outcome: 'confirmed', waitedMs, decidedAt: performance.now() }),
    holdNext: () => void (confirmation = heldBack()),
  };
}

function steps() {
  const fake = fakeCluster();
  const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
  const log = (fields: Record<string, unknown>, msg: string) => void lines.push({ msg, fields });
  const eventLog = new EventLog(() => 0);
  const context = {
    mode: 'lossy',
    phaseMs: 1000,
    cluster: fake.cluster,
    eventLog,
    clock: { seconds: () => 0 },
    watch: { guard: <T>(p: Promise<T>) => p },
    logger: { info: log, warn: log },
    observer: { intervalMs: 1000, phase: () => {}, tick: () => {} },
    onPhase: () => {},
  } as unknown as Steps;
  return { plan: new PlanSteps(context), fake, lines, eventLog };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 15));

test('a freeze that opens the fault window opens it, and logs it, only once the stop is confirmed: the publisher is counted from there', async () => {
  const { plan, fake, lines, eventLog } = steps();
  fake.publish(200);
  await plan.phase({ phase: 'stalled' });
  const phaseOpened = plan.record.stallWindow.from;
  const freezing = plan.freeze({ consumers: ['consumer-3'] });
  await tick();
  fake.publish(212); // the consumer ran on: these were published before it stopped
  expect(lines.map((l) => l.msg)).not.toContain('stall started');
  expect(fake.asked).toEqual(['publisher at 200']); // nobody asked at the SIGSTOP
  expect(eventLog.events.map((e) => e.type)).toEqual(['phase']);
  const confirmedAfter = Date.now();
  fake.confirmNow(15);
  await freezing;
  expect(lines.find((l) => l.msg === 'stall started')!.fields).toEqual({
    consumers: [{ name: 'consumer-3', pid: 100, waitedMs: 15 }],
  });
  expect(fake.asked).toEqual(['publisher at 200', 'broker bytesSent', 'publisher at 212']);
  expect(plan.record.stallWindow.from).toBeGreaterThanOrEqual(confirmedAfter);
  expect(plan.record.stallWindow.from).toBeGreaterThan(phaseOpened);
  expect(eventLog.events.at(-1)).toMatchObject({ type: 'freeze', consumer: 'consumer-3', waitedMs: 15 });

  fake.holdNext();
  const thawing = plan.thaw({ consumers: ['consumer-3'] });
  await tick();
  expect(plan.record.recoveredAt['consumer-3']).toBeUndefined();
  const thawConfirmedAfter = Date.now();
  fake.confirmNow(2);
  await thawing;
  expect(plan.record.recoveredAt['consumer-3']).toBeGreaterThanOrEqual(thawConfirmedAfter);
  expect(lines.at(-1)).toEqual({
    msg: 'stall ended',
    fields: { consumers: [{ name: 'consumer-3', pid: 100, waitedMs: 2 }] },
  });
  fake.publish(400);
  await plan.phase({ phase: 'recovering' });
  expect(plan.record.publishedInStall).toBe(400 - 212);
});

test('a freeze after another fault opened the window leaves the window where it was', async () => {
  const { plan, fake } = steps();
  await plan.phase({ phase: 'stalled' });
  plan.slow({ consumer: 'consumer-1', percent: 50 });
  const opened = plan.record.stallWindow.from;
  const freezing = plan.freeze({ consumers: ['consumer-3'] });
  await tick();
  fake.confirmNow(1);
  await freezing;
  plan.nemesis.stop();
  expect(plan.record.stallWindow.from).toBe(opened);
});
