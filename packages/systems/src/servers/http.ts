const TIMEOUT_MS = 2_000;

/** The body of a GET, or undefined when the server did not answer 200 in time. */
export async function getText(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** The numeric fields of a flat JSON object (NATS /varz) named in `names`. */
export function numericFields(json: string, names: readonly string[]): Record<string, number> {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  const fields: Record<string, number> = {};
  for (const name of names) {
    const value = parsed[name];
    if (typeof value === 'number') fields[name] = value;
  }
  return fields;
}

/** The named series of a Prometheus text exposition (etcd /metrics), summed over their labels. */
export function metricValues(text: string, names: readonly string[]): Record<string, number> {
  const values: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] === undefined || !names.includes(match[1])) continue;
    values[match[1]] = (values[match[1]] ?? 0) + Number(match[2]);
  }
  return values;
}
