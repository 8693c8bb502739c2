/** A change to `key` goes out on `<prefix>.k.<key>`; the writer answers snapshots beside it. */
export const changeSubject = (prefix: string, key: string) => `${prefix}.k.${key}`;
export const allChanges = (prefix: string) => `${prefix}.k.>`;
export const keyOf = (prefix: string, subject: string) => subject.slice(`${prefix}.k.`.length);
export const snapshotSubject = (prefix: string) => `${prefix}.snapshot`;

/** A subject token: no dot, wildcard or whitespace. */
export function checkKey(key: string): string {
  if (!/^[^.*>\s]+$/.test(key)) throw new Error(`key "${key}" cannot be a NATS subject token`);
  return key;
}
