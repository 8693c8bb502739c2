import { wallClockMs, type Logger } from '@state-divergence/runtime';

/** The report keeps the last spans: a flapping link must not grow it without bound. */
export const STALE_SPANS_KEPT = 256;
/** The transition timer's floor: a tiny `staleAfterMs` must not spin a timer (the counting stays exact). */
const MIN_TICK_MS = 10;

/** Where the tracker says a transition happened (the consumer logs them: staleLog). */
export interface StaleTransitions {
  /** The broker has been silent longer than staleAfterMs: said once per span, by the timer. */
  stale(silentMs: number): void;
  /**
   * A frame ended a stale span of `staleMs`, `unawareMs` of which this process was not running (a
   * timer of its own came that much late: frozen, or its event loop blocked), so it could not know.
   */
  fresh(staleMs: number, unawareMs: number): void;
}

/**
 * Whether the broker has gone quiet on this consumer, where its mode's broker speaks even to an
 * idle subscriber (PROGRESS every heartbeat). Any frame is the broker speaking; no session at all
 * (reconnecting, or a subscription that ended) is silence too. A span runs from `staleAfterMs`
 * after the last frame to the next one. It is counted exactly from timestamps (a frame costs one
 * clock read); a timer at about a quarter of staleAfterMs only says when a span starts (`stale`),
 * since no frame marks that moment.
 *
 * A frozen process runs no timer and reads no frame: it cannot know it is stale while frozen. Once
 * it runs again, the first frame closes the span, frozen time included (the broker WAS silent to it
 * that long); `fresh` says how much of the span it was not running for (unawareMs).
 */
export class StaleTracker {
  readonly tickMs: number;
  private lastHeard: number;
  /** The last moment this process was seen running (a frame or a tick): a later gap means it was not. */
  private lastAwake: number;
  private closedMs = 0;
  private readonly spans: Array<[number, number]> = [];
  /** The open span's part this process was not running for, and whether `stale` was said for it. */
  private openUnawareMs = 0;
  private announced = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly staleAfterMs: number,
    private readonly transitions: StaleTransitions,
    private readonly now: () => number = wallClockMs,
  ) {
    this.tickMs = Math.max(MIN_TICK_MS, staleAfterMs / 4);
    this.lastHeard = this.lastAwake = now();
  }

  /** The broker spoke (any frame, a WELCOME included). */
  heard(): void {
    const at = this.now();
    this.awake(at);
    const from = this.openSince();
    if (at > from) {
      this.closeSpan([from, at]);
      this.transitions.fresh(at - from, this.openUnawareMs);
    }
    this.lastHeard = at;
    this.openUnawareMs = 0;
    this.announced = false;
  }

  /** The timer's body: says `stale` once when a span has begun. */
  tick(): void {
    const at = this.now();
    this.awake(at);
    if (this.announced || at <= this.openSince()) return;
    this.announced = true;
    this.transitions.stale(at - this.lastHeard);
  }

  isStale(at = this.now()): boolean {
    return at > this.openSince();
  }

  /** Closed spans plus the open one up to `at`. */
  staleMs(at = this.now()): number {
    return this.closedMs + Math.max(0, at - this.openSince());
  }

  /** The spans kept, oldest first, the open one up to `at` included. */
  staleSpans(at = this.now()): Array<[number, number]> {
    const from = this.openSince();
    const spans: Array<[number, number]> = at > from ? [...this.spans, [from, at]] : [...this.spans];
    return spans.slice(-STALE_SPANS_KEPT);
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private openSince(): number {
    return this.lastHeard + this.staleAfterMs;
  }

  /**
   * This process runs at `at`. A gap since it was last seen running longer than two ticks means it
   * was not running from one tick after that until now (a late tick is jitter; two is not): the part
   * of that window inside the open span is time it was stale without being able to know.
   */
  private awake(at: number): void {
    if (at - this.lastAwake > 2 * this.tickMs) {
      const blindFrom = Math.max(this.lastAwake + this.tickMs, this.openSince());
      if (at > blindFrom) this.openUnawareMs += at - blindFrom;
    }
    this.lastAwake = at;
  }

  private closeSpan(span: [number, number]): void {
    this.closedMs += span[1] - span[0];
    this.spans.push(span);
    if (this.spans.length > STALE_SPANS_KEPT) this.spans.shift();
  }
}

/** The transitions as log lines: `stale` (warn) and `fresh again` (info), once each per span. */
export function staleLog(logger: Logger, staleAfterMs: number): StaleTransitions {
  return {
    stale: (silentMs) => logger.warn({ silentMs: Math.round(silentMs), staleAfterMs }, 'stale'),
    fresh: (staleMs, unawareMs) =>
      logger.info({ staleMs: Math.round(staleMs), unawareMs: Math.round(unawareMs) }, 'fresh again'),
  };
}
