/** Everything of a run lives under its prefix: one key per changed key, one channel. */
export const keyName = (prefix: string, key: string) => `${prefix}:k:${key}`;
export const keyPattern = (prefix: string) => `${prefix}:k:*`;
export const keyOf = (prefix: string, name: string) => name.slice(`${prefix}:k:`.length);
export const channelName = (prefix: string) => `${prefix}:changes`;
/** The writer's last seq, set in the same MULTI as every change: a listing's position. */
export const seqName = (prefix: string) => `${prefix}:seq`;
