// Its own stale signal (docs/CONSUMER.md, "Your stale time"): where the broker speaks even to an
// idle subscriber (the init's staleAfterMs is a number: PROGRESS every heartbeat), hearing no frame
// for staleAfterMs means we are cut off, or the broker is silent. Counted from timestamps, no timer:
// a span runs from staleAfterMs after a frame to the next frame (or to now, while it lasts).

const SPANS_KEPT = 256;

export class Staleness {
  constructor(staleAfterMs) {
    this.staleAfterMs = staleAfterMs;
    this.lastHeard = Date.now();
    this.closedMs = 0;
    this.spans = [];
  }

  /** A frame arrived (any frame). Returns the stale span it ended, in ms, or 0. */
  heard() {
    const now = Date.now();
    const from = this.lastHeard + this.staleAfterMs;
    this.lastHeard = now;
    if (now <= from) return 0;
    this.closedMs += now - from;
    this.spans.push([from, now]);
    if (this.spans.length > SPANS_KEPT) this.spans.shift();
    return now - from;
  }

  /** For `status` and `progress`: stale right now, and stale time so far (the open span included). */
  counters() {
    const open = Math.max(0, Date.now() - (this.lastHeard + this.staleAfterMs));
    return { stale: open > 0, staleMs: this.closedMs + open };
  }

  /** For `gather`: stale time and its spans, [from, to] wall-clock ms. */
  report() {
    const now = Date.now();
    const from = this.lastHeard + this.staleAfterMs;
    const spans = now > from ? [...this.spans, [from, now]] : this.spans;
    return { staleMs: this.closedMs + Math.max(0, now - from), staleSpans: spans.slice(-SPANS_KEPT) };
  }
}
