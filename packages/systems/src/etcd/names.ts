/** A run's keys live under `<prefix>/`: the slash keeps `sd-a` from matching `sd-ab`. */
export const keyPrefix = (prefix: string) => `${prefix}/`;
export const keyName = (prefix: string, key: string) => `${prefix}/${key}`;
export const keyOf = (prefix: string, name: string) => name.slice(prefix.length + 1);
