// The local copy and what this consumer knows about its own stream. Naive (the
// default) applies whatever arrives and trusts it. Careful checks that event
// offsets are contiguous and asks for a RESUME at the first gap.

import { digestOf } from './digest.js';

const MAX_LATENCY_SAMPLES = 200_000;

export class Replica {
  /** key -> { version, value, deleted }: a delete keeps a tombstone, so an older write cannot bring the key back. */
  #entries = new Map();

  constructor({ careful, startOffset, awaitingSnapshot, askResume }) {
    this.careful = careful;
    this.askResume = askResume;
    this.applied = 0;
    this.lastOffset = startOffset; // the highest offset applied (careful: applied without a gap)
    this.syncing = awaitingSnapshot;
    this.lags = 0;
    this.resumes = 0;
    this.syncs = [];
    this.sync = { frames: 0, keys: new Set() };
    /** Where the delta on its way starts (it re-sends every key written after it), and what deltas gave back. */
    this.deltaFrom = null;
    this.repairedRanges = [];
    this.latency = { appliedAt: [], latencyMs: [] };
  }

  /** Last write wins by version. */
  apply({ key, version, value, deleted }) {
    const held = this.#entries.get(key);
    if (held !== undefined && held.version >= version) return;
    this.#entries.set(key, { version, value, deleted });
  }

  /** One frame from the broker (not WELCOME, ERROR or DIGEST: the subscription handles those). */
  handle(frame) {
    switch (frame.type) {
      case 'event':
        return this.#event(frame);
      case 'state':
        this.apply(frame);
        this.sync.frames += 1;
        this.sync.keys.add(frame.key);
        return;
      case 'syncEnd':
        this.syncs.push({
          kind: frame.kind,
          at: Date.now(),
          frames: this.sync.frames,
          keys: this.sync.keys.size,
          bytes: 0,
          offset: frame.offset,
        });
        if (frame.kind === 'delta' && this.deltaFrom !== null && frame.offset > this.deltaFrom)
          this.repairedRanges.push([this.deltaFrom + 1, frame.offset]);
        this.deltaFrom = null;
        this.sync = { frames: 0, keys: new Set() };
        this.lastOffset = Math.max(this.lastOffset, frame.offset);
        this.syncing = false;
        return;
      case 'lag':
        this.lags += 1;
        this.syncing = true;
        this.deltaFrom = frame.from - 1;
        return;
      default:
        return; // PROGRESS: a heartbeat
    }
  }

  #event(frame) {
    this.apply(frame);
    this.applied += 1;
    const now = Date.now();
    if (this.latency.appliedAt.length < MAX_LATENCY_SAMPLES) {
      this.latency.appliedAt.push(now);
      this.latency.latencyMs.push(now - frame.publishedAt);
    }
    if (!this.careful) {
      this.lastOffset = frame.offset; // naive: whatever arrived last is where we are
      return;
    }
    if (this.syncing) return; // a delta is on its way: it closes the gap, not the events
    if (frame.offset === this.lastOffset + 1) this.lastOffset = frame.offset;
    else if (frame.offset > this.lastOffset + 1) {
      this.resumes += 1;
      this.syncing = true;
      this.deltaFrom = this.lastOffset;
      this.askResume(this.lastOffset);
    }
  }

  /** Live keys as [key, version, value]. */
  entries() {
    const out = [];
    for (const [key, e] of this.#entries) if (!e.deleted) out.push([key, e.version, e.value]);
    return out;
  }

  /** Each key's live version, indexed by key (0: not held, or deleted). */
  versions() {
    let size = 0;
    for (const key of this.#entries.keys()) size = Math.max(size, key + 1);
    const out = new Array(size).fill(0);
    for (const [key, e] of this.#entries) if (!e.deleted) out[key] = e.version;
    return out;
  }

  digest() {
    const pairs = [];
    for (const [key, e] of this.#entries) if (!e.deleted) pairs.push([key, e.version]);
    return digestOf(pairs);
  }
}
