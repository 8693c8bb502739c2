import type { Versioned } from './target-system.js';

/**
 * What the publisher's acknowledged writes say each key holds: for each key, the write with the
 * highest seq in the system's order (etcd: the latest revision, which need not be the latest
 * issued). Deleted keys are absent.
 */
export class Authority {
  private readonly latest = new Map<string, { value: string | null; seq: number }>();
  acknowledged = 0;

  /** One acknowledged write; `seq` null for one that changed nothing (Writer.write), counted and no more. */
  record(key: string, value: string | null, seq: number | null): void {
    this.acknowledged += 1;
    if (seq === null) return;
    const known = this.latest.get(key);
    if (known === undefined || seq > known.seq) this.latest.set(key, { value, seq });
  }

  entries(): Map<string, Versioned> {
    const entries = new Map<string, Versioned>();
    for (const [key, { value, seq }] of this.latest) if (value !== null) entries.set(key, { value, seq });
    return entries;
  }
}
