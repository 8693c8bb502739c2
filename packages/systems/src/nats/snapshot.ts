import type { Versioned } from '../target-system.js';

/**
 * The writer's answer to a snapshot request: a page of every key it has written, deletes
 * included (value null), each with the seq of its last write. Core NATS keeps no state, so the
 * one that holds it, the writer, serves it (NATS's request/reply). A message holds at most
 * max_payload (1 MiB by default), so the snapshot comes in pages of at most PAGE_BYTES; pages are
 * read at different moments, which the per-key seq makes harmless (see mergeKey).
 */
export interface SnapshotPage {
  readonly entries: [string, string | null, number][];
  /** The index to ask for next; undefined on the last page. */
  readonly next?: number;
}

export const PAGE_BYTES = 256 * 1024;

export interface SnapshotRequest {
  readonly from: number;
}

/** What a snapshot says of each key: its value (null: deleted) and the seq that set it. */
export type Known = Map<string, { value: string | null; seq: number }>;

/** The live entries of a snapshot, as a copy holds them. */
export function liveEntries(known: Known): Map<string, Versioned> {
  const entries = new Map<string, Versioned>();
  for (const [key, { value, seq }] of known) if (value !== null) entries.set(key, { value, seq });
  return entries;
}
