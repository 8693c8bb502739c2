/**
 * How a change travels on systems that keep no order of their own (core NATS, Redis): the
 * writer's global sequence number goes with the value, so a consumer can say which write it
 * applied and the checker can tell a missed write from a reordered one.
 */
export interface Change {
  readonly key: string;
  /** null: the key was deleted. */
  readonly value: string | null;
  readonly seq: number;
}

export function encodeChange(change: Change): string {
  return JSON.stringify({ k: change.key, v: change.value, s: change.seq });
}

export function decodeChange(text: string): Change {
  const parsed = JSON.parse(text) as { k?: unknown; v?: unknown; s?: unknown };
  if (
    typeof parsed.k !== 'string' ||
    typeof parsed.s !== 'number' ||
    (parsed.v !== null && typeof parsed.v !== 'string')
  ) {
    throw new Error(`not a change: ${text.slice(0, 80)}`);
  }
  return { key: parsed.k, value: parsed.v, seq: parsed.s };
}

/** A stored value with the seq of the write that set it: `<seq> <value>`. */
export function encodeStored(seq: number, value: string): string {
  return `${seq} ${value}`;
}

export function decodeStored(text: string): { seq: number; value: string } {
  const space = text.indexOf(' ');
  const seq = Number(text.slice(0, space));
  if (space < 0 || !Number.isInteger(seq)) throw new Error(`not a stored value: ${text.slice(0, 80)}`);
  return { seq, value: text.slice(space + 1) };
}
