/**
 * The run plan is data: built from the options, checked without a process,
 * and interpreted in order by a clock the test controls.
 */
import { checkPlan, buildPlan, longestStallMs, planLengthMs, stallWindows, stalledConsumers, type PlanStep, type RunPlan } from '../packages/orchestrator/src/run/plan.js';
import { interpretPlan, type StepHandlers } from '../packages/orchestrator/src/run/interpret-plan.js';

const seedPlan = buildPlan({ duration: 4, stall: ['consumer-3'], joinLate: null });

describe('the seed\'s plan', () => {
  test('converged one phase, stalled two (publishing ends with the stall), recovering, quiesced: five phases', () => {
    expect(seedPlan.phaseMs).toBe(4000);
    expect(seedPlan.steps).toEqual<PlanStep[]>([
      { at: 0, do: 'phase', phase: 'converged' },
      { at: 0, do: 'publish', durationMs: 12_000 },
      { at: 4000, do: 'freeze', consumers: ['consumer-3'] },
      { at: 4000, do: 'phase', phase: 'stalled' },
      { at: 12_000, do: 'thaw', consumers: ['consumer-3'] },
      { at: 12_000, do: 'phase', phase: 'recovering' },
      { at: 12_000, do: 'publish-end' },
      { at: 16_000, do: 'phase', phase: 'quiesced' },
      { at: 20_000, do: 'end' },
    ]);
    expect(checkPlan(seedPlan)).toEqual([]);
  });

  test('what the run derives from it: length, who is stalled, the windows, the longest stall', () => {
    expect(planLengthMs(seedPlan)).toBe(20_000);
    expect(stalledConsumers(seedPlan)).toEqual(['consumer-3']);
    expect(stallWindows(seedPlan)).toEqual([{ consumer: 'consumer-3', from: 4000, to: 12_000 }]);
    expect(longestStallMs(seedPlan)).toBe(8000);
  });

  test('a late joiner subscribes when the stall starts', () => {
    const plan = buildPlan({ duration: 1, stall: ['consumer-3'], joinLate: 'consumer-2' });
    expect(plan.steps.filter((s) => s.do === 'join')).toEqual([{ at: 1000, do: 'join', consumer: 'consumer-2' }]);
    expect(checkPlan(plan)).toEqual([]);
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
      'consumer-1 is frozen again at 400 ms while still frozen',
      'consumer-1 is never thawed',
      'the plan publishes 0 time(s) and waits for the end of publishing 0 time(s); each must be once',
    ]);
  });
});

describe('interpretPlan', () => {
  test('waits for each step\'s time, then performs it, in order; a slow step delays the next, never reorders', async () => {
    const trace: string[] = [];
    const handlers: StepHandlers = {
      phase: ({ phase }) => void trace.push(`phase ${phase}`),
      publish: ({ durationMs }) => void trace.push(`publish ${durationMs}`),
      freeze: ({ consumers }) => void trace.push(`freeze ${consumers.join()}`),
      thaw: ({ consumers }) => void trace.push(`thaw ${consumers.join()}`),
      join: ({ consumer }) => void trace.push(`join ${consumer}`),
      publishEnd: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        trace.push('publish-end');
      },
    };
    await interpretPlan(buildPlan({ duration: 1, stall: ['consumer-3'], joinLate: 'consumer-1' }), handlers, async (at) => void trace.push(`@${at}`));
    expect(trace).toEqual([
      '@0', 'phase converged', '@0', 'publish 3000',
      '@1000', 'freeze consumer-3', '@1000', 'phase stalled', '@1000', 'join consumer-1',
      '@3000', 'thaw consumer-3', '@3000', 'phase recovering', '@3000', 'publish-end',
      '@4000', 'phase quiesced', '@5000',
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
      join: () => {},
      publishEnd: () => {},
    };
    await expect(interpretPlan(seedPlan, handlers, async () => {})).rejects.toThrow('the nemesis failed');
    expect(performed).toEqual(['converged']);
  });
});
