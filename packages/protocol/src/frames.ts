import type { ErrorCode, Role } from './constants.js';

/** One change to the keyspace, as the publisher emits it. */
export interface Change {
  /** Index into the keyspace, 0-based (see keyName). */
  key: number;
  /** Global, strictly increasing version assigned by the publisher. */
  version: number;
  /** The new value (opaque u32). */
  value: number;
  /** Wall-clock publish time, ms since the epoch (sub-ms precision), for latency. */
  publishedAt: number;
  /** Padding length (--payload); the bytes themselves carry no meaning. */
  payloadLength: number;
}

export interface HelloFrame {
  type: 'hello';
  protocolVersion: number;
  role: Role;
  name: string;
}

export interface WelcomeFrame {
  type: 'welcome';
  /** Highest offset the broker had assigned when the client was admitted (0: none yet). */
  headOffset: number;
}

export interface PublishFrame {
  type: 'publish';
  change: Change;
  /**
   * The PUBLISH body, copied out of the receive buffer: the broker forwards it
   * verbatim inside an EVENT so each change is encoded once for all subscribers.
   */
  body: Uint8Array;
}

export interface EventFrame {
  type: 'event';
  /** Broker-assigned position in the change stream: 1, 2, 3, ... with no holes at the source. */
  offset: number;
  change: Change;
}

export interface ErrorFrame {
  type: 'error';
  code: ErrorCode;
  message: string;
}

export type Frame = HelloFrame | WelcomeFrame | PublishFrame | EventFrame | ErrorFrame;
