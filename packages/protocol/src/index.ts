export * from './constants.js';
export type * from './frames.js';
export * from './encode.js';
export { FrameDecoder, FrameDecodeError } from './decoder.js';
export * from './ipc.js';
export * from './keyspace.js';
export { StateDigest } from './digest.js';
