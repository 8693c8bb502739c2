/** The run's stream, and the hash the writer keeps of every key's current value beside it. */
export const streamName = (prefix: string) => `${prefix}:stream`;
export const stateName = (prefix: string) => `${prefix}:state`;
export const MAXLEN_KNOB = 'maxlen';
