import { CLEAR_LINK, MAX_LINK_DELAY_MS, type LinkShape } from '@state-divergence/protocol';

/**
 * The fate of each datagram in one direction of a link, as netem would decide it: dropped, or
 * held for some ms (0: sent at once). Pure: its only input is `random` (uniform in [0, 1)), so a
 * seeded generator repeats a run's drops and jitter.
 *
 * Correlated loss. netem's historical draw (`r = c·prev + (1−c)·U`, drop if r < p) narrows r
 * around 0.5 as c grows, so it drops far less than asked: `loss 20% 75%` drops ~0.3 % (the tc-netem
 * man page calls that model broken). Here the correlation is on the decisions instead: with
 * probability c the datagram shares the previous one's fate, otherwise it is dropped with
 * probability p. The long-run loss stays exactly p, the chance that a drop follows a drop is
 * c + (1−c)·p, and a burst of drops lasts 1 / ((1−c)(1−p)) datagrams on average.
 */
export class LinkShaper {
  private shape: LinkShape = CLEAR_LINK;
  private lastDropped = false;

  constructor(private readonly random: () => number) {}

  /** Applies to the datagrams that arrive from now on; a new shape starts its own run of fates. */
  reshape(shape: LinkShape): void {
    this.shape = shape;
    this.lastDropped = false;
  }

  /** How long to hold the next datagram, ms (0: send it now), or null: drop it. */
  next(): number | null {
    return this.drops() ? null : this.holdMs();
  }

  private drops(): boolean {
    const { lossPct, correlationPct } = this.shape;
    // The ends need no draw: a partition drops everything, a clear link nothing, whatever came before.
    if (lossPct <= 0) return false;
    if (lossPct >= 100) return true;
    const follows = correlationPct > 0 && this.random() < correlationPct / 100;
    this.lastDropped = follows ? this.lastDropped : this.random() < lossPct / 100;
    return this.lastDropped;
  }

  /** delayMs ± uniform jitterMs, never below 0 nor above MAX_LINK_DELAY_MS. */
  private holdMs(): number {
    const { delayMs, jitterMs } = this.shape;
    const spread = jitterMs > 0 ? (2 * this.random() - 1) * jitterMs : 0;
    return Math.min(MAX_LINK_DELAY_MS, Math.max(0, delayMs + spread));
  }
}
