import type { PhaseName } from '../model/events.js';

/**
 * The plan of one mode's run, as plain data (Jepsen's generator as a value):
 * timed steps the interpreter (interpret-plan.ts) carries out in order. Times
 * are ms since publishing started. A test can build a plan and check it
 * without starting a process.
 */
export type PlanStep =
  | { at: number; do: 'phase'; phase: PhaseName }
  /** The workload: publish at the run's rate for `durationMs`, then stop. */
  | { at: number; do: 'publish'; durationMs: number }
  /** The nemesis: SIGSTOP these consumers (and later SIGCONT them). */
  | { at: number; do: 'freeze'; consumers: string[] }
  | { at: number; do: 'thaw'; consumers: string[] }
  /** A consumer that subscribes only now, in the middle of the stream. */
  | { at: number; do: 'join'; consumer: string }
  /** Publishing is over: wait for the publisher's `done` (and for any joiner to be subscribed). */
  | { at: number; do: 'publish-end' }
  | { at: number; do: 'end' };

export interface RunPlan {
  /** Length of one phase, ms (--duration). */
  phaseMs: number;
  steps: PlanStep[];
}

/**
 * The seed's plan: converged for one phase, stalled for two (publishing stops
 * when the stall ends), recovering, then quiesced; five phases in all.
 */
export function buildPlan(options: { duration: number; stall: string[]; joinLate: string | null }): RunPlan {
  const d = options.duration * 1000;
  const steps: PlanStep[] = [
    { at: 0, do: 'phase', phase: 'converged' },
    { at: 0, do: 'publish', durationMs: 3 * d },
    { at: d, do: 'freeze', consumers: options.stall },
    { at: d, do: 'phase', phase: 'stalled' },
    ...(options.joinLate === null ? [] : [{ at: d, do: 'join', consumer: options.joinLate } as const]),
    { at: 3 * d, do: 'thaw', consumers: options.stall },
    { at: 3 * d, do: 'phase', phase: 'recovering' },
    { at: 3 * d, do: 'publish-end' },
    { at: 4 * d, do: 'phase', phase: 'quiesced' },
    { at: 5 * d, do: 'end' },
  ];
  return { phaseMs: d, steps };
}

/** When the plan ends, ms after publishing started. */
export function planLengthMs(plan: RunPlan): number {
  return plan.steps.find((s) => s.do === 'end')?.at ?? 0;
}

/** Every consumer the plan freezes at some point. */
export function stalledConsumers(plan: RunPlan): string[] {
  return [...new Set(plan.steps.flatMap((s) => (s.do === 'freeze' ? s.consumers : [])))];
}

/** Each consumer's frozen windows, [from, to) in ms, in plan order. */
export function stallWindows(plan: RunPlan): Array<{ consumer: string; from: number; to: number }> {
  const open = new Map<string, number>();
  const windows: Array<{ consumer: string; from: number; to: number }> = [];
  for (const step of plan.steps) {
    if (step.do === 'freeze') for (const c of step.consumers) open.set(c, step.at);
    if (step.do === 'thaw') {
      for (const c of step.consumers) {
        const from = open.get(c);
        if (from !== undefined) windows.push({ consumer: c, from, to: step.at });
        open.delete(c);
      }
    }
  }
  return windows;
}

/** The longest time any consumer stays frozen: QUIC's idle timeout must outlast it. */
export function longestStallMs(plan: RunPlan): number {
  return Math.max(0, ...stallWindows(plan).map((w) => w.to - w.from));
}

/**
 * What makes a plan unrunnable, as sentences (empty: it is fine): steps out of
 * time order, no `end` last, a consumer frozen twice or never thawed, publishing
 * that is never waited for.
 */
export function checkPlan(plan: RunPlan): string[] {
  const problems: string[] = [];
  const { steps } = plan;
  steps.forEach((step, i) => {
    if (i > 0 && step.at < steps[i - 1]!.at) problems.push(`step ${i} (${step.do} at ${step.at} ms) comes before the step it follows`);
  });
  if (steps.at(-1)?.do !== 'end') problems.push('the last step is not `end`');
  if (steps[0]?.do !== 'phase' || steps[0].at !== 0) problems.push('the plan does not open with a phase at 0 ms');
  const frozen = new Set<string>();
  for (const step of steps) {
    if (step.do === 'freeze') {
      for (const c of step.consumers) {
        if (frozen.has(c)) problems.push(`${c} is frozen again at ${step.at} ms while still frozen`);
        frozen.add(c);
      }
    }
    if (step.do === 'thaw') for (const c of step.consumers) frozen.delete(c);
  }
  for (const c of frozen) problems.push(`${c} is never thawed`);
  const publishes = steps.filter((s) => s.do === 'publish').length;
  const ends = steps.filter((s) => s.do === 'publish-end').length;
  if (publishes !== 1 || ends !== 1) problems.push(`the plan publishes ${publishes} time(s) and waits for the end of publishing ${ends} time(s); each must be once`);
  return problems;
}
