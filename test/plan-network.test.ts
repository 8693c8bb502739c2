/**
 * Network faults in the plan (netFault / netHeal steps) and in the nemesis (the relay's `shape`
 * commands), as data and against a fake relay: no process.
 */
import type { ChildHandle, Fault } from '@state-divergence/orchestrator';
import { CLEAR_LINK, PARTITIONED_LINK, type OrchestratorCommand } from '@state-divergence/protocol';
import {
  buildPlan,
  checkPlan,
  faultedConsumers,
  longestStallMs,
  Nemesis,
  networkFaulted,
  EventLog,
  type PlanStep,
} from '@state-divergence/orchestrator/internal';

const partition: Fault = { kind: 'partition', consumer: 'consumer-3', from: 1, to: 3 };
const loss: Fault = { kind: 'loss', consumer: 'consumer-2', from: 0.5, to: 4, lossPct: 20, correlationPct: 75 };
const delay: Fault = { kind: 'delay', consumer: 'publisher', from: 1, to: 2, delayMs: 50, jitterMs: 10 };
const stall: Fault = { kind: 'stall', consumer: 'consumer-1', from: 3, to: 4 };

describe('network faults in the plan', () => {
  const plan = buildPlan({ duration: 1, faults: [loss, partition, delay, stall], publishUntil: null, joinLate: null });
  const of = (kind: PlanStep['do']) =>
    plan.steps.filter((s) => s.do === kind).map((s) => ({ at: s.at, target: 'target' in s ? s.target : undefined }));

  test('each is a netFault at FROM and a netHeal at TO, for its client', () => {
    expect(checkPlan(plan)).toEqual([]);
    expect(of('netFault')).toEqual([
      { at: 500, target: 'consumer-2' },
      { at: 1000, target: 'consumer-3' },
      { at: 1000, target: 'publisher' },
    ]);
    expect(of('netHeal')).toEqual([
      { at: 2000, target: 'publisher' },
      { at: 3000, target: 'consumer-3' },
      { at: 4000, target: 'consumer-2' },
    ]);
    expect(plan.steps.find((s) => s.do === 'netFault' && s.target === 'consumer-2')).toMatchObject({ fault: loss });
  });

  test('ranked like slow/unslow: at one instant a heal comes before the phase change, a fault after it', () => {
    const at3 = plan.steps.filter((s) => s.at === 3000).map((s) => s.do);
    expect(at3.indexOf('netHeal')).toBeLessThan(at3.indexOf('freeze'));
    const at1 = plan.steps.filter((s) => s.at === 500).map((s) => s.do);
    expect(at1).toEqual(['phase', 'netFault']); // the stalled phase opens before the first fault
  });

  test("a publisher cut off until publishing ends is healed before publishEnd waits for its last change (a consumer's heal comes after it)", () => {
    const cut = buildPlan({
      duration: 1,
      faults: [
        { ...partition, consumer: 'publisher' },
        { ...partition, from: 2 },
      ],
      publishUntil: null,
      joinLate: null,
    });
    expect(cut.steps.filter((s) => s.at === 3000).map((s) => `${s.do}${'target' in s ? ` ${s.target}` : ''}`)).toEqual([
      'netHeal publisher',
      'publishEnd',
      'netHeal consumer-3',
      'phase',
      'publishDone',
    ]);
  });

  test('the stalled phase spans them; the publisher waits for the last heal; only stalls count toward the idle timeout', () => {
    expect(plan.steps.find((s) => s.do === 'phase' && s.phase === 'recovering')?.at).toBe(4000);
    expect(plan.steps.find((s) => s.do === 'publishDone')?.at).toBe(4000);
    expect(longestStallMs(plan)).toBe(1000); // the partition of 2 s does not raise it
  });

  test('every network-faulted client gets a relay; the faulted consumers include them, never the publisher', () => {
    expect(networkFaulted(plan).sort()).toEqual(['consumer-2', 'consumer-3', 'publisher']);
    expect(faultedConsumers(plan).sort()).toEqual(['consumer-1', 'consumer-2', 'consumer-3']);
  });

  test('checkPlan pairs them: a heal without its fault, a fault that never heals, a heal that ends another kind of fault', () => {
    const steps = (...middle: PlanStep[]): PlanStep[] => [
      { at: 0, do: 'phase', phase: 'converged' },
      { at: 0, do: 'publish', durationMs: 1000 },
      ...middle,
      { at: 3000, do: 'publishDone' },
      { at: 4000, do: 'end' },
    ];
    expect(checkPlan({ phaseMs: 1000, steps: steps({ at: 1000, do: 'netHeal', target: 'consumer-2' }) })).toEqual([
      'consumer-2 gets netHeal at 1000 ms without a fault to end',
    ]);
    expect(
      checkPlan({ phaseMs: 1000, steps: steps({ at: 1000, do: 'netFault', target: 'consumer-2', fault: loss }) }),
    ).toEqual(["consumer-2's netFault never ends"]);
    expect(
      checkPlan({
        phaseMs: 1000,
        steps: steps(
          { at: 1000, do: 'freeze', consumers: ['consumer-2'] },
          { at: 2000, do: 'netHeal', target: 'consumer-2' },
        ),
      }),
    ).toEqual(['consumer-2 gets netHeal at 2000 ms, which does not end its freeze']);
  });
});

describe('the nemesis shapes a link through its relay', () => {
  function fakeRelay(client: string) {
    const sent: OrchestratorCommand[] = [];
    const relay = {
      name: `relay-${client}`,
      pid: 77,
      alive: true,
      send: (command: OrchestratorCommand) => void sent.push(command),
    };
    return { relay: relay as unknown as ChildHandle<'relay'>, sent };
  }

  test('partition: everything dropped both ways; loss and delay: the same values both ways; heal: CLEAR_LINK both ways', () => {
    const eventLog = new EventLog(() => 5);
    const nemesis = new Nemesis(eventLog);
    const three = fakeRelay('consumer-3');
    const two = fakeRelay('consumer-2');
    const pub = fakeRelay('publisher');
    nemesis.shapeLink(three.relay, partition);
    nemesis.shapeLink(two.relay, loss);
    nemesis.shapeLink(pub.relay, delay);
    expect(three.sent).toEqual([{ type: 'shape', up: PARTITIONED_LINK, down: PARTITIONED_LINK }]);
    const lossy = { ...CLEAR_LINK, lossPct: 20, correlationPct: 75 };
    expect(two.sent).toEqual([{ type: 'shape', up: lossy, down: lossy }]);
    const delayed = { ...CLEAR_LINK, delayMs: 50, jitterMs: 10 };
    expect(pub.sent).toEqual([{ type: 'shape', up: delayed, down: delayed }]);
    // The live view sees the network kind as the client's active fault, until the heal.
    expect(['consumer-3', 'consumer-2', 'publisher', 'consumer-1'].map((n) => nemesis.activeFault(n))).toEqual([
      'partition',
      'loss',
      'delay',
      null,
    ]);
    nemesis.healLink(three.relay, 'consumer-3');
    expect(three.sent.at(-1)).toEqual({ type: 'shape', up: CLEAR_LINK, down: CLEAR_LINK });
    expect(nemesis.activeFault('consumer-3')).toBeNull();
    expect(eventLog.events).toEqual([
      { at: 5, type: 'net-fault', consumer: 'consumer-3', fault: partition },
      { at: 5, type: 'net-fault', consumer: 'consumer-2', fault: loss },
      { at: 5, type: 'net-fault', consumer: 'publisher', fault: delay },
      { at: 5, type: 'net-heal', consumer: 'consumer-3' },
    ]);
  });

  test('a process fault is no link shape', () => {
    expect(() => new Nemesis(new EventLog(() => 0)).shapeLink(fakeRelay('consumer-1').relay, stall)).toThrow(
      'stall is not a network fault',
    );
  });
});
