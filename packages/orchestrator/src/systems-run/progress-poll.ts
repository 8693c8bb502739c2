import type { Probe, ProbeReport } from '@state-divergence/systems';
import type { ConsumerProgress, SystemRunObserver, SystemSnapshot } from './system-progress.js';

/** How often the watched run asks its probes where they are: twice a second, as our broker's live view. */
const POLL_MS = 500;
/** The publisher's rate is over this much of the latest time: a stall's effect shows within it. */
const RATE_WINDOW_MS = 2_000;

export interface ProgressPoll {
  /** A consumer frozen or thawed: a frozen probe answers nothing, so it is not asked until thawed. */
  frozen(consumer: string, frozen: boolean): void;
  stage(stage: SystemSnapshot['stage']): void;
  /** Stops asking and waits for the answers in flight: the drain then asks alone (one reply per request). */
  stop(): Promise<void>;
  /** The drain's own reports (`wrong`: each copy's wrong keys then), as the next snapshot. */
  drained(reports: readonly ProbeReport[], wrong: readonly number[]): void;
  /** Stops asking, without waiting: the run is being torn down. */
  cancel(): void;
}

function progressOf(progress: ConsumerProgress, report: ProbeReport): ConsumerProgress {
  return {
    ...progress,
    applied: report.applied,
    relists: report.relists,
    signals: report.signals.length,
    lastSignal: report.signals.at(-1)?.kind ?? null,
  };
}

/**
 * A run's progress for its observer, from the probes' own reports (each running probe asked every
 * POLL_MS, one request at a time) and the publisher's acknowledged count. Only a watched run polls:
 * a report costs the probe a copy of its state, which an unwatched run has no use for.
 */
export function pollProgress(
  probes: ReadonlyMap<string, Probe>,
  acknowledged: () => number,
  startedAt: number,
  observer: SystemRunObserver,
): ProgressPoll {
  const latest = new Map<string, ConsumerProgress>(
    [...probes.keys()].map((name) => [
      name,
      { name, state: 'running', applied: 0, relists: 0, signals: 0, lastSignal: null, wrongNow: null },
    ]),
  );
  const asking = new Map<string, Promise<void>>();
  const samples: [number, number][] = [];
  let stage: SystemSnapshot['stage'] = 'publishing';

  const emit = () => {
    const now = Date.now();
    const count = acknowledged();
    samples.push([now, count]);
    while (samples.length > 1 && samples[0]![0] < now - RATE_WINDOW_MS) samples.shift();
    const [since, then] = samples[0]!;
    observer.snapshot({
      seconds: (now - startedAt) / 1000,
      stage,
      acknowledged: count,
      ratePerSec: now > since ? Math.round(((count - then) * 1000) / (now - since)) : 0,
      consumers: [...latest.values()],
    });
  };
  const ask = () => {
    for (const [name, probe] of probes) {
      if (latest.get(name)!.state === 'frozen' || asking.has(name)) continue;
      const answer = probe
        .report()
        .then((report) => void latest.set(name, progressOf(latest.get(name)!, report)))
        .catch(() => {}) // a probe that cannot answer keeps its last counts; the run itself will say why
        .finally(() => asking.delete(name));
      asking.set(name, answer);
    }
  };
  const timer = setInterval(() => {
    ask();
    emit();
  }, POLL_MS);
  ask();

  return {
    frozen: (consumer, frozen) => {
      const progress = latest.get(consumer)!;
      latest.set(consumer, { ...progress, state: frozen ? 'frozen' : 'running' });
      observer.stall(consumer, frozen, (Date.now() - startedAt) / 1000);
      emit();
    },
    stage: (next) => {
      stage = next;
      emit();
    },
    stop: async () => {
      clearInterval(timer);
      await Promise.all(asking.values());
    },
    drained: (reports, wrong) => {
      [...latest.keys()].forEach((name, i) => {
        const progress = progressOf(latest.get(name)!, reports[i]!);
        latest.set(name, { ...progress, wrongNow: wrong[i]!, state: wrong[i] === 0 ? 'done' : 'running' });
      });
      emit();
    },
    cancel: () => clearInterval(timer),
  };
}
