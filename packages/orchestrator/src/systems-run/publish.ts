import type { Authority, Writer } from '@state-divergence/systems';
import type { Change } from './workload.js';

/** Most writes awaiting their acknowledgement at once: the publisher is bounded, never a flood. */
const MAX_IN_FLIGHT = 256;

/** One acknowledged write: what the checker needs to tell a value the run wrote from one it never did. */
export interface Acknowledged {
  readonly key: string;
  readonly value: string | null;
  readonly seq: number;
  /** ms since publishing started, when the acknowledgement came. */
  readonly atMs: number;
  /** ms since publishing started, when the write was issued (publish-to-apply latency counts from it). */
  readonly issuedMs: number;
}

/** A write the system did not acknowledge (its server was down): not in the authority, its outcome unknown. */
export interface Failed {
  readonly key: string;
  readonly value: string | null;
  /** ms since publishing started, when it failed. */
  readonly atMs: number;
  /** ms since publishing started, when it was issued. */
  readonly issuedMs: number;
  readonly message: string;
}

export interface Published {
  issued: number;
  /** The writes that failed after a server crash, in the order they failed. */
  failed: Failed[];
  /** Every acknowledged write, by its seq in the system's order. */
  bySeq: Map<number, Acknowledged>;
  /** When publishing ended, ms since it started (earlier than planned if the run was aborted). */
  endedMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes the workload at `rate` changes/s for `durationMs`, one acknowledged write per change and
 * at most MAX_IN_FLIGHT unacknowledged, recording each acknowledgement in `authority`. Stops early
 * (after the writes in flight) when `signal` aborts. A failed write fails the run, unless it failed
 * at or after `failuresFromMs` (a server crash's kill): then it is counted and publishing goes on,
 * the writer's client reconnecting as it does by itself.
 */
export async function publish(
  writer: Writer,
  next: () => Change,
  authority: Authority,
  plan: { rate: number; durationMs: number; startedAt: number; signal: AbortSignal; failuresFromMs?: number },
): Promise<Published> {
  const inFlight = new Set<Promise<void>>();
  const bySeq = new Map<number, Acknowledged>();
  const failed: Failed[] = [];
  let issued = 0;
  let failure: unknown;
  const elapsed = () => Date.now() - plan.startedAt;
  const due = () => Math.floor((plan.rate * Math.min(elapsed(), plan.durationMs)) / 1000);
  while (elapsed() < plan.durationMs && !plan.signal.aborted && failure === undefined) {
    while (issued < due() && inFlight.size < MAX_IN_FLIGHT) {
      issued += 1;
      const { key, value } = next();
      const issuedMs = elapsed();
      const one: Promise<void> = writer.write(key, value).then(
        (seq) => {
          authority.record(key, value, seq);
          // A write that changed nothing has no seq of its own to be found by.
          if (seq !== null) bySeq.set(seq, { key, value, seq, atMs: elapsed(), issuedMs });
        },
        (error: unknown) => {
          const atMs = elapsed();
          if (atMs >= (plan.failuresFromMs ?? Infinity))
            failed.push({ key, value, atMs, issuedMs, message: (error as Error).message ?? String(error) });
          else failure ??= error;
        },
      );
      inFlight.add(one);
      void one.finally(() => inFlight.delete(one));
    }
    await pause(inFlight.size >= MAX_IN_FLIGHT ? 1 : 5);
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  return { issued, failed, bySeq, endedMs: elapsed() };
}
