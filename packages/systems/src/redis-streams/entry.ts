/** One stream entry's fields: k (key), s (the writer's seq), v (the value; absent for a delete). */
export interface StreamChange {
  readonly id: string;
  readonly key: string;
  readonly value: string | null;
  readonly seq: number;
}

/** An XREAD/XRANGE entry, `[id, [field, value, …]]`, as a change. */
export function decodeEntry(id: string, fields: string[]): StreamChange {
  const get = (name: string) => {
    const at = fields.indexOf(name);
    return at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
  };
  const key = get('k');
  const seq = Number(get('s'));
  if (key === undefined || !Number.isInteger(seq)) throw new Error(`stream entry ${id} is not a change`);
  return { id, key, value: get('v') ?? null, seq };
}
