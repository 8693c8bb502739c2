/**
 * The run plan is data: built from the options, checked without a process,
 * and interpreted in order by a clock the test controls.
 */
import type { Fault } from '@state-divergence/orchestrator';
import {
  buildPlan,
  checkPlan,
  faultedConsumers,
  interpretPlan,
  longestStallMs,
  planLengthMs,
  stallWindows,
  type PlanStep,
  type RunPlan,
  type StepHandlers,
} from '@state-divergence/orchestrator/internal';

const stall3 = (duration: number): Fault[] => [
  { kind: 'stall', consumer: 'consumer-3', from: duration, to: 3 * duration },
];
const seedPlan = buildPlan({ duration: 4, faults: stall3(4), publishUntil: null, joinLate: null });

describe("the seed's plan", () => {
  test('converged one phase, stalled two (publishing ends with the stall), recovering, quiesced: five phases', () => {
    expect(seedPlan.phaseMs).toBe(4000);
    expect(seedPlan.steps).toEqual<PlanStep[]>([
      { at: 0, do: 'phase', phase: 'converged' },
      { at: 0, do: 'publish', durationMs: 12_000 },
      { at: 4000, do: 'phase', phase: 'stalled' },
      { at: 4000, do: 'freeze', consumers: ['consumer-3'] },
      { at: 12_000, do: 'publishEnd' }, // the publisher makes its last change before the thaw
      { at: 12_000, do: 'thaw', consumers: ['consumer-3'] },
      { at: 12_000, do: 'phase', phase: 'recovering' },
      { at: 12_000, do: 'publishDone' },
      { at: 16_000, do: 'phase', phase: 'quiesced' },
      { at: 20_000, do: 'end' },
    ]);
    expect(checkPlan(seedPlan)).toEqual([]);
  });

  test('what the run derives from it: length, who is stalled, the windows, the longest stall', () => {
    expect(planLengthMs(seedPlan)).toBe(20_000);
    expect(faultedConsumers(seedPlan)).toEqual(['consumer-3']);
    expect(stallWindows(seedPlan)).toEqual([{ consumer: 'consumer-3', from: 4000, to: 12_000 }]);
    expect(longestStallMs(seedPlan)).toBe(8000);
  });

  test('a late joiner subscribes when the stall starts', () => {
    const plan = buildPlan({ duration: 1, faults: stall3(1), publishUntil: null, joinLate: 'consumer-2' });
    expect(plan.steps.filter((s) => s.do === 'join')).toEqual([{ at: 1000, do: 'join', consumer: 'consumer-2' }]);
    expect(checkPlan(plan)).toEqual([]);
  });
});

describe('a plan from a fault schedule', () => {
  const faults: Fault[] = [
    { kind: 'stall', consumer: 'consumer-2', from: 1, to: 3 },
    { kind: 'slow', consumer: 'consumer-3', from: 2, to: 5, percent: 70 },
    { kind: 'crash', consumer: 'consumer-4', from: 4, to: 6 },
  ];

  test('each fault has its start and its end; the stalled phase spans them all; recovering and quiesced follow the last', () => {
    const plan = buildPlan({ duration: 1, faults, publishUntil: null, joinLate: null });
    expect(checkPlan(plan)).toEqual([]);
    expect(
      plan.steps.map(
        (s) =>
          `${s.at} ${s.do}${'phase' in s ? ` ${s.phase}` : ''}${'consumer' in s ? ` ${s.consumer}` : ''}` +
          `${'consumers' in s ? ` ${s.consumers.join()}` : ''}`,
      ),
    ).toEqual([
      '0 phase converged',
      '0 publish',
      '1000 phase stalled',
      '1000 freeze consumer-2',
      '2000 slow consumer-3',
      '3000 thaw consumer-2',
      '4000 crash consumer-4',
      '5000 unslow consumer-3',
      '6000 publishEnd',
      '6000 restart consumer-4',
      '6000 phase recovering',
      '6000 publishDone',
      '7000 phase quiesced',
      '8000 end',
    ]);
    // the seed's rule: publishing stops when the last fault ends
    expect(plan.steps[1]).toEqual({ at: 0, do: 'publish', durationMs: 6000 });
    expect(faultedConsumers(plan)).toEqual(['consumer-2', 'consumer-3', 'consumer-4']);
    expect(longestStallMs(plan)).toBe(2000);
  });

  test('--publish-until keeps publishing after the faults: recovering lasts until it stops, then one phase, then quiesced', () => {
    const plan = buildPlan({ duration: 1, faults: stall3(1), publishUntil: 7, joinLate: null });
    expect(plan.steps.filter((s) => s.do !== 'freeze' && s.do !== 'thaw')).toEqual([
      { at: 0, do: 'phase', phase: 'converged' },
      { at: 0, do: 'publish', durationMs: 7000 },
      { at: 1000, do: 'phase', phase: 'stalled' },
      { at: 3000, do: 'phase', phase: 'recovering' },
      { at: 7000, do: 'publishEnd' },
      { at: 7000, do: 'publishDone' },
      { at: 8000, do: 'phase', phase: 'quiesced' },
      { at: 9000, do: 'end' },
    ]);
  });

  test('publishing that stops before the last fault ends is waited for only once the faults are over (lossless would block it until then)', () => {
    const plan = buildPlan({
      duration: 1,
      faults: [{ kind: 'stall', consumer: 'consumer-3', from: 1, to: 6 }],
      publishUntil: 3,
      joinLate: null,
    });
    expect(checkPlan(plan)).toEqual([]);
    expect(plan.steps.find((s) => s.do === 'publishEnd')).toEqual({ at: 3000, do: 'publishEnd' });
    expect(plan.steps.find((s) => s.do === 'publishDone')).toEqual({ at: 6000, do: 'publishDone' });
    const thaw = plan.steps.findIndex((s) => s.do === 'thaw');
    expect(plan.steps.findIndex((s) => s.do === 'publishDone')).toBeGreaterThan(thaw);
    expect(planLengthMs(plan)).toBe(8000);
  });

  test('stalls that start together are one freeze, as the seed froze them', () => {
    const together: Fault[] = [
      { kind: 'stall', consumer: 'consumer-2', from: 1, to: 3 },
      { kind: 'stall', consumer: 'consumer-4', from: 1, to: 3 },
    ];
    const steps = buildPlan({ duration: 1, faults: together, publishUntil: null, joinLate: null }).steps;
    expect(steps.filter((s) => s.do === 'freeze')).toEqual([
      { at: 1000, do: 'freeze', consumers: ['consumer-2', 'consumer-4'] },
    ]);
  });
});

describe('a broker crash', () => {
  const broker: Fault = { kind: 'crash', consumer: 'broker', from: 1, to: 2 };
  const show = (plan: RunPlan) =>
    plan.steps.map(
      (s) => `${s.at} ${s.do}${'phase' in s ? ` ${s.phase}` : ''}${'consumer' in s ? ` ${s.consumer}` : ''}`,
    );

  test('is a window of the stalled phase; publishing goes on one phase after the broker is back; it comes back before a consumer restarted at that instant', () => {
    const plan = buildPlan({
      duration: 1,
      faults: [{ kind: 'crash', consumer: 'consumer-2', from: 0.5, to: 2 }, broker],
      publishUntil: null,
      joinLate: null,
    });
    expect(checkPlan(plan)).toEqual([]);
    expect(show(plan)).toEqual([
      '0 phase converged',
      '0 publish',
      '500 phase stalled',
      '500 crash consumer-2',
      '1000 brokerCrash',
      '2000 brokerRestart',
      '2000 restart consumer-2',
      '2000 phase recovering',
      '3000 publishEnd',
      '3000 publishDone',
      '4000 phase quiesced',
      '5000 end',
    ]);
    expect(plan.steps[1]).toEqual({ at: 0, do: 'publish', durationMs: 3000 });
    // The broker is not a consumer: it is in no consumer's list of faults.
    expect(faultedConsumers(plan)).toEqual(['consumer-2']);
  });

  test('--publish-until decides alone when publishing ends', () => {
    expect(buildPlan({ duration: 1, faults: [broker], publishUntil: 6, joinLate: null }).steps[1]).toEqual({
      at: 0,
      do: 'publish',
      durationMs: 6000,
    });
  });

  test('checkPlan refuses a consumer starting while the broker is down, and a restart when publishing is over', () => {
    expect(checkPlan(buildPlan({ duration: 1, faults: [broker], publishUntil: null, joinLate: 'consumer-1' }))).toEqual(
      ['consumer-1 starts (join) at 1000 ms while the broker is down'],
    );
    expect(checkPlan(buildPlan({ duration: 1, faults: [broker], publishUntil: 2, joinLate: null }))).toEqual([
      'the broker restarts at 2000 ms, not before publishing ends at 2000 ms',
    ]);
  });
});

describe('checkPlan', () => {
  const withSteps = (steps: PlanStep[]): RunPlan => ({ phaseMs: 1000, steps });
  test('names each way a plan cannot run', () => {
    const broken = withSteps([
      { at: 0, do: 'phase', phase: 'converged' },
      { at: 500, do: 'freeze', consumers: ['consumer-1'] },
      { at: 400, do: 'freeze', consumers: ['consumer-1'] },
      { at: 900, do: 'phase', phase: 'quiesced' },
    ]);
    expect(checkPlan(broken)).toEqual([
      'step 2 (freeze at 400 ms) comes before the step it follows',
      'the last step is not `end`',
      'consumer-1 gets freeze at 400 ms while its freeze has not ended',
      "consumer-1's freeze never ends",
      'the plan publishes 0 time(s) and waits for the end of publishing 0 time(s); each must be once',
    ]);
  });
});

describe('interpretPlan', () => {
  test("waits for each step's time, then performs it, in order; a slow step delays the next, never reorders", async () => {
    const trace: string[] = [];
    const handlers: StepHandlers = {
      phase: ({ phase }) => void trace.push(`phase ${phase}`),
      publish: ({ durationMs }) => void trace.push(`publish ${durationMs}`),
      freeze: ({ consumers }) => void trace.push(`freeze ${consumers.join()}`),
      thaw: ({ consumers }) => void trace.push(`thaw ${consumers.join()}`),
      join: ({ consumer }) => void trace.push(`join ${consumer}`),
      slow: ({ consumer, percent }) => void trace.push(`slow ${consumer} ${percent}`),
      unslow: ({ consumer }) => void trace.push(`unslow ${consumer}`),
      crash: ({ consumer }) => void trace.push(`crash ${consumer}`),
      restart: ({ consumer }) => void trace.push(`restart ${consumer}`),
      brokerCrash: () => void trace.push('brokerCrash'),
      brokerRestart: () => void trace.push('brokerRestart'),
      netFault: ({ target }) => void trace.push(`netFault ${target}`),
      netHeal: ({ target }) => void trace.push(`netHeal ${target}`),
      publishEnd: () => void trace.push('publishEnd'),
      publishDone: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        trace.push('publishDone');
      },
      end: () => void trace.push('end'),
    };
    const started = performance.now();
    const seenAt: number[] = [];
    await interpretPlan(
      buildPlan({ duration: 1, faults: stall3(1), publishUntil: null, joinLate: 'consumer-1' }),
      handlers,
      async (at) => {
        trace.push(`@${at}`);
        seenAt.push(performance.now() - started);
      },
    );
    // The clock was consulted for the step after publishDone only once publishDone's 20 ms had passed.
    const afterDone = trace.filter((t) => t.startsWith('@')).indexOf('@4000');
    expect(seenAt[afterDone]! - seenAt[afterDone - 1]!).toBeGreaterThanOrEqual(19);
    expect(trace).toEqual([
      '@0',
      'phase converged',
      '@0',
      'publish 3000',
      '@1000',
      'phase stalled',
      '@1000',
      'freeze consumer-3',
      '@1000',
      'join consumer-1',
      '@3000',
      'publishEnd',
      '@3000',
      'thaw consumer-3',
      '@3000',
      'phase recovering',
      '@3000',
      'publishDone',
      '@4000',
      'phase quiesced',
      '@5000',
      'end',
    ]);
  });

  test('a step that fails ends the plan there', async () => {
    const performed: string[] = [];
    const handlers: StepHandlers = {
      phase: ({ phase }) => void performed.push(phase),
      publish: () => {},
      freeze: () => {
        throw new Error('the nemesis failed');
      },
      thaw: () => void performed.push('thaw'),
      slow: () => {},
      unslow: () => {},
      crash: () => {},
      restart: () => {},
      brokerCrash: () => {},
      brokerRestart: () => {},
      netFault: () => {},
      netHeal: () => {},
      join: () => {},
      publishEnd: () => {},
      publishDone: () => {},
      end: () => {},
    };
    await expect(interpretPlan(seedPlan, handlers, async () => {})).rejects.toThrow('the nemesis failed');
    // the freeze after the phase change failed: nothing after it ran
    expect(performed).toEqual(['converged', 'stalled']);
  });
});
