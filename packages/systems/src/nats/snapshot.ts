import type { Versioned } from '../target-system.js';

/**
 * The writer's answer to a snapshot request: every key it has written (deletes as null), and
 * the seq of its last change published before the answer. Core NATS keeps no state, so the one
 * that holds it, the writer, serves it: the request/reply pattern NATS teaches for this.
 */
export interface Snapshot {
  readonly seq: number;
  readonly entries: [string, string | null, number][];
}

export function decodeSnapshot(text: string): { seq: number; entries: Map<string, Versioned> } {
  const parsed = JSON.parse(text) as Snapshot;
  const entries = new Map<string, Versioned>();
  for (const [key, value, seq] of parsed.entries) if (value !== null) entries.set(key, { value, seq });
  return { seq: parsed.seq, entries };
}
