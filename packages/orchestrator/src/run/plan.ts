import type { PhaseName } from '../model/events.js';
import {
  BROKER,
  DEFAULT_SLOW_PERCENT,
  isBrokerFault,
  isNetworkFault,
  PUBLISHER,
  publishingEnds,
  type Fault,
} from '../model/faults.js';

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
  /** Stopped `percent` % of every 100 ms until `unslow`. */
  | { at: number; do: 'slow'; consumer: string; percent: number }
  | { at: number; do: 'unslow'; consumer: string }
  /** SIGKILL; at `restart` a fresh process of the same name subscribes. */
  | { at: number; do: 'crash'; consumer: string }
  | { at: number; do: 'restart'; consumer: string }
  /**
   * SIGKILL the broker and tell the publisher and every consumer (QUIC would leave them waiting
   * for their idle timeout); at `brokerRestart` a new broker starts on the same port.
   */
  | { at: number; do: 'brokerCrash' }
  | { at: number; do: 'brokerRestart' }
  /**
   * A network fault (`fault`: partition, loss or delay) on the link of `target` (a consumer or the
   * publisher): its relay shapes the link until `netHeal` clears it.
   */
  | { at: number; do: 'netFault'; target: string; fault: Fault }
  | { at: number; do: 'netHeal'; target: string }
  /** A consumer that subscribes only now, in the middle of the stream. */
  | { at: number; do: 'join'; consumer: string }
  /**
   * Publishing is over: the publisher's last change is made and taken by the
   * broker before anything else happens at this instant (see steps.ts), so
   * "publishing stops when the stall ends" holds to the event, however far a
   * busy machine left the publisher behind its schedule.
   */
  | { at: number; do: 'publishEnd' }
  /** Wait for the publisher's `done` (and for any joiner to be subscribed). */
  | { at: number; do: 'publishDone' }
  | { at: number; do: 'end' };

export interface RunPlan {
  /** Length of one phase, ms (--duration). */
  phaseMs: number;
  steps: PlanStep[];
}

/**
 * At one instant: publishing ends, then the broker comes back, then faults end
 * (a restarted consumer needs the broker), then the phase changes, then faults
 * start and publishing begins, then joiners, then the publisher's `done` is
 * awaited. So the `stalled` phase opens before the first fault and closes after
 * the last, and a consumer thawed when publishing stops gets nothing published
 * after its thaw.
 */
const RANK: Record<PlanStep['do'], number> = {
  publishEnd: 0,
  brokerRestart: 1,
  thaw: 2,
  unslow: 2,
  restart: 2,
  netHeal: 2,
  phase: 3,
  freeze: 4,
  slow: 4,
  crash: 4,
  brokerCrash: 4,
  netFault: 4,
  publish: 4,
  join: 5,
  publishDone: 6,
  end: 7,
};
/**
 * Except the publisher's own heal, which comes first: cut off, it cannot make its last change, and
 * `publishEnd` would wait for it (steps.ts) with the link still cut, lengthening the cut past what
 * was asked (measured, when that wait was a 500 ms grace: `--partition publisher@1-5.5` healed at 6.0 s).
 */
const rank = (step: PlanStep): number => (step.do === 'netHeal' && step.target === PUBLISHER ? -1 : RANK[step.do]);

function faultSteps(faults: Fault[]): PlanStep[] {
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const steps: PlanStep[] = [];
  for (const f of faults) {
    if (f.kind === 'slow')
      steps.push(
        { at: ms(f.from), do: 'slow', consumer: f.consumer, percent: f.percent ?? DEFAULT_SLOW_PERCENT },
        { at: ms(f.to), do: 'unslow', consumer: f.consumer },
      );
    if (f.kind === 'crash' && isBrokerFault(f))
      steps.push({ at: ms(f.from), do: 'brokerCrash' }, { at: ms(f.to), do: 'brokerRestart' });
    else if (f.kind === 'crash')
      steps.push(
        { at: ms(f.from), do: 'crash', consumer: f.consumer },
        { at: ms(f.to), do: 'restart', consumer: f.consumer },
      );
    if (isNetworkFault(f))
      steps.push(
        { at: ms(f.from), do: 'netFault', target: f.consumer, fault: f },
        { at: ms(f.to), do: 'netHeal', target: f.consumer },
      );
  }
  // Stalls that start (or end) at the same instant are one step: frozen together, as the seed does.
  const stalls = faults.filter((f) => f.kind === 'stall');
  for (const [key, kind] of [
    ['from', 'freeze'],
    ['to', 'thaw'],
  ] as const) {
    for (const at of new Set(stalls.map((f) => ms(f[key])))) {
      steps.push({ at, do: kind, consumers: stalls.filter((f) => ms(f[key]) === at).map((f) => f.consumer) });
    }
  }
  return steps;
}

/**
 * The plan of a run with these faults. Phases: converged until the first fault
 * starts, stalled until the last one ends, then recovering for one phase after
 * publishing stops (by default when the last fault ends: the seed's rule; one
 * phase after a broker restart, see publishingEnds), then quiesced for one. The seed's default (one consumer stalled
 * over [d, 3d)) is
 * five phases: converged, stalled for two, recovering, quiesced.
 */
export function buildPlan(options: {
  duration: number;
  faults: Fault[];
  publishUntil: number | null;
  joinLate: string | null;
}): RunPlan {
  const d = options.duration * 1000;
  const firstFault = Math.min(...options.faults.map((f) => Math.round(f.from * 1000)));
  const lastFault = Math.max(...options.faults.map((f) => Math.round(f.to * 1000)));
  const publishEnd = Math.round(publishingEnds(options) * 1000);
  const settled = Math.max(lastFault, publishEnd);
  const steps: PlanStep[] = [
    { at: 0, do: 'phase', phase: 'converged' },
    { at: 0, do: 'publish', durationMs: publishEnd },
    { at: firstFault, do: 'phase', phase: 'stalled' },
    ...faultSteps(options.faults),
    ...(options.joinLate === null ? [] : [{ at: firstFault, do: 'join', consumer: options.joinLate } as const]),
    { at: lastFault, do: 'phase', phase: 'recovering' },
    { at: publishEnd, do: 'publishEnd' },
    // Waiting for the publisher's `done` before a frozen consumer is thawed could wait for ever under
    // lossless (it blocks the publisher by design): never before the last fault ends.
    { at: Math.max(publishEnd, lastFault), do: 'publishDone' },
    { at: settled + d, do: 'phase', phase: 'quiesced' },
    { at: settled + 2 * d, do: 'end' },
  ];
  // Stable: steps of one rank at one instant keep the order above.
  return { phaseMs: d, steps: steps.sort((a, b) => a.at - b.at || rank(a) - rank(b)) };
}

/** When the plan ends, ms after publishing started. */
export function planLengthMs(plan: RunPlan): number {
  return plan.steps.find((s) => s.do === 'end')?.at ?? 0;
}

/** The clients whose link the plan faults at some point (consumers, and `publisher`): each gets a relay. */
export function networkFaulted(plan: RunPlan): string[] {
  return [...new Set(plan.steps.flatMap((s) => (s.do === 'netFault' ? [s.target] : [])))];
}

/** Every consumer the plan faults at some point (frozen, slowed, crashed, or its link; not the publisher's link). */
export function faultedConsumers(plan: RunPlan): string[] {
  const processes = plan.steps.flatMap((s) =>
    s.do === 'freeze' ? s.consumers : s.do === 'slow' || s.do === 'crash' ? [s.consumer] : [],
  );
  return [...new Set([...processes, ...networkFaulted(plan).filter((name) => name !== PUBLISHER)])];
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
 * time order, no `end` last, a consumer given a second fault before the first
 * ended or a fault that never ends, publishing that is never waited for.
 */
export function checkPlan(plan: RunPlan): string[] {
  const problems: string[] = [];
  const { steps } = plan;
  steps.forEach((step, i) => {
    if (i > 0 && step.at < steps[i - 1]!.at)
      problems.push(`step ${i} (${step.do} at ${step.at} ms) comes before the step it follows`);
  });
  if (steps.at(-1)?.do !== 'end') problems.push('the last step is not `end`');
  if (steps[0]?.do !== 'phase' || steps[0].at !== 0) problems.push('the plan does not open with a phase at 0 ms');
  const open = new Map<string, string>(); // consumer -> the fault step it is in
  const opening = (step: PlanStep): string[] =>
    step.do === 'freeze'
      ? step.consumers
      : step.do === 'slow' || step.do === 'crash'
        ? [step.consumer]
        : step.do === 'brokerCrash'
          ? [BROKER]
          : step.do === 'netFault'
            ? [step.target]
            : [];
  const closing = (step: PlanStep): string[] =>
    step.do === 'thaw'
      ? step.consumers
      : step.do === 'unslow' || step.do === 'restart'
        ? [step.consumer]
        : step.do === 'brokerRestart'
          ? [BROKER]
          : step.do === 'netHeal'
            ? [step.target]
            : [];
  for (const step of steps) {
    for (const c of closing(step)) {
      if (!open.has(c)) problems.push(`${c} gets ${step.do} at ${step.at} ms without a fault to end`);
      else if ((step.do === 'netHeal') !== (open.get(c) === 'netFault'))
        problems.push(`${c} gets ${step.do} at ${step.at} ms, which does not end its ${open.get(c)}`);
      open.delete(c);
    }
    for (const c of opening(step)) {
      if (open.has(c)) problems.push(`${c} gets ${step.do} at ${step.at} ms while its ${open.get(c)} has not ended`);
      open.set(c, step.do);
    }
    // A consumer subscribes as it starts: there must be a broker to subscribe to.
    if ((step.do === 'restart' || step.do === 'join') && open.has(BROKER))
      problems.push(`${step.consumer} starts (${step.do}) at ${step.at} ms while the broker is down`);
  }
  for (const [c, fault] of open) problems.push(`${c}'s ${fault} never ends`);
  const done = steps.find((s) => s.do === 'publishDone');
  const lastFaultEnd = Math.max(
    0,
    ...steps
      .filter(
        (s) =>
          s.do === 'thaw' || s.do === 'unslow' || s.do === 'restart' || s.do === 'brokerRestart' || s.do === 'netHeal',
      )
      .map((s) => s.at),
  );
  if (done !== undefined && done.at < lastFaultEnd)
    problems.push(
      `the plan waits for the publisher at ${done.at} ms, before its last fault ends at ${lastFaultEnd} ms`,
    );
  const publishEnd = steps.find((s) => s.do === 'publishEnd')?.at;
  const lateRestart = steps.find((s) => s.do === 'brokerRestart' && publishEnd !== undefined && s.at >= publishEnd);
  if (lateRestart)
    problems.push(`the broker restarts at ${lateRestart.at} ms, not before publishing ends at ${publishEnd} ms`);
  const publishes = steps.filter((s) => s.do === 'publish').length;
  const ends = steps.filter((s) => s.do === 'publishDone').length;
  if (publishes !== 1 || ends !== 1)
    problems.push(
      `the plan publishes ${publishes} time(s) and waits for the end of publishing ${ends} time(s); each must be once`,
    );
  return problems;
}
