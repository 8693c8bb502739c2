import type { Signal, SignalKind, Sink, Versioned } from './target-system.js';

/**
 * A consumer's local copy as a Sink: the map it ends with, the seqs it applied in the order it
 * applied them (the checker's evidence of what reached it), and the signals it received.
 */
export class LocalCopy implements Sink {
  readonly entries = new Map<string, Versioned>();
  readonly applied: number[] = [];
  /**
   * When each of `applied` was applied, wall-clock ms with a fraction (performance's clock, which
   * processes on one machine share): with the writer's time of each seq, a publish→apply latency.
   */
  readonly appliedAtMs: number[] = [];
  readonly signals: Signal[] = [];
  relists = 0;

  constructor(private readonly now: () => number = Date.now) {}

  apply(key: string, value: string | null, seq: number): void {
    if (value === null) this.entries.delete(key);
    else this.entries.set(key, { value, seq });
    this.applied.push(seq);
    this.appliedAtMs.push(performance.timeOrigin + performance.now());
  }

  replace(entries: ReadonlyMap<string, Versioned>): void {
    this.entries.clear();
    for (const [key, entry] of entries) this.entries.set(key, entry);
  }

  signal(kind: SignalKind, detail?: string): void {
    if (kind === 'relist') this.relists += 1;
    this.signals.push(detail === undefined ? { kind, atMs: this.now() } : { kind, atMs: this.now(), detail });
  }
}

/** The keys whose value in `copy` differs from `authority` (missing, extra or stale), sorted. */
export function wrongKeys(copy: ReadonlyMap<string, Versioned>, authority: ReadonlyMap<string, Versioned>): string[] {
  const wrong = new Set<string>();
  for (const [key, entry] of authority) if (copy.get(key)?.value !== entry.value) wrong.add(key);
  for (const key of copy.keys()) if (!authority.has(key)) wrong.add(key);
  return [...wrong].sort();
}
