import type { PlanStep, RunPlan } from './plan.js';

type StepKind = PlanStep['do'];
type Step<K extends StepKind> = Extract<PlanStep, { do: K }>;

/**
 * What carries out each kind of step, one handler per kind named after it (a step's `do`): the
 * interpreter only sequences. A kind added to PlanStep without a handler does not compile.
 */
export type StepHandlers = { [K in StepKind]: (step: Step<K>) => void | Promise<void> };

/** Generic in the kind, so that `handlers[step.do]` is the handler of this step's own kind. */
function perform<K extends StepKind>(step: Step<K>, handlers: StepHandlers): void | Promise<void> {
  return handlers[step.do](step);
}

/**
 * Runs the plan: waits until each step's time, then performs it, in order.
 * A step that takes a while (waiting for the publisher) delays the ones after
 * it, never reorders them. `waitUntil` is the clock (a test passes a fake one).
 */
export async function interpretPlan(
  plan: RunPlan,
  handlers: StepHandlers,
  waitUntil: (atMs: number) => Promise<void>,
): Promise<void> {
  for (const step of plan.steps) {
    await waitUntil(step.at);
    await perform(step, handlers);
  }
}
