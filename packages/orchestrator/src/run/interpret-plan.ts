import type { PlanStep, RunPlan } from './plan.js';

type Step<K extends PlanStep['do']> = Extract<PlanStep, { do: K }>;

/** What carries out each kind of step; the interpreter only sequences. */
export interface StepHandlers {
  phase(step: Step<'phase'>): void | Promise<void>;
  publish(step: Step<'publish'>): void | Promise<void>;
  freeze(step: Step<'freeze'>): void | Promise<void>;
  thaw(step: Step<'thaw'>): void | Promise<void>;
  slow(step: Step<'slow'>): void | Promise<void>;
  unslow(step: Step<'unslow'>): void | Promise<void>;
  crash(step: Step<'crash'>): void | Promise<void>;
  restart(step: Step<'restart'>): void | Promise<void>;
  brokerCrash(step: Step<'broker-crash'>): void | Promise<void>;
  brokerRestart(step: Step<'broker-restart'>): void | Promise<void>;
  netFault(step: Step<'net-fault'>): void | Promise<void>;
  netHeal(step: Step<'net-heal'>): void | Promise<void>;
  join(step: Step<'join'>): void | Promise<void>;
  publishEnd(step: Step<'publish-end'>): void | Promise<void>;
  publishDone(step: Step<'publish-done'>): void | Promise<void>;
  end(step: Step<'end'>): void | Promise<void>;
}

function perform(step: PlanStep, handlers: StepHandlers): void | Promise<void> {
  switch (step.do) {
    case 'phase':
      return handlers.phase(step);
    case 'publish':
      return handlers.publish(step);
    case 'freeze':
      return handlers.freeze(step);
    case 'thaw':
      return handlers.thaw(step);
    case 'slow':
      return handlers.slow(step);
    case 'unslow':
      return handlers.unslow(step);
    case 'crash':
      return handlers.crash(step);
    case 'restart':
      return handlers.restart(step);
    case 'broker-crash':
      return handlers.brokerCrash(step);
    case 'broker-restart':
      return handlers.brokerRestart(step);
    case 'net-fault':
      return handlers.netFault(step);
    case 'net-heal':
      return handlers.netHeal(step);
    case 'join':
      return handlers.join(step);
    case 'publish-end':
      return handlers.publishEnd(step);
    case 'publish-done':
      return handlers.publishDone(step);
    case 'end':
      return handlers.end(step);
  }
}

/**
 * Runs the plan: waits until each step's time, then performs it, in order.
 * A step that takes a while (waiting for the publisher) delays the ones after
 * it, never reorders them. `waitUntil` is the clock (a test passes a fake one).
 */
export async function interpretPlan(plan: RunPlan, handlers: StepHandlers, waitUntil: (atMs: number) => Promise<void>): Promise<void> {
  for (const step of plan.steps) {
    await waitUntil(step.at);
    await perform(step, handlers);
  }
}
