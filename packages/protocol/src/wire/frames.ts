import type { ErrorCode, Role, StartKind, SyncKind } from './constants.js';

/** One change to the keyspace, as the publisher emits it. */
export interface Change {
  /** Index into the keyspace, 0-based (see keyName). */
  key: number;
  /** Global, strictly increasing version assigned by the publisher. */
  version: number;
  /** The new value (opaque u32); 0 for a delete. */
  value: number;
  /** True when this change deletes the key (a tombstone in state transfers). */
  deleted: boolean;
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
  /** Where a subscriber's stream starts (publishers send latest). */
  start: StartKind;
  /** For StartKind.offset: the last offset the subscriber already has. */
  startOffset: number;
  /** The per-run access token (a copy). */
  token: Uint8Array;
}

export interface WelcomeFrame {
  type: 'welcome';
  /** Highest offset the broker had assigned when the client was admitted (0: none yet). */
  headOffset: number;
  /**
   * The broker's incarnation. Offsets mean the same thing only within one epoch: a broker
   * without a log restarts with a new epoch and offsets from 1 again; a durable one recovers
   * its log, keeps its epoch and continues its offsets.
   */
  epoch: number;
}

/**
 * Broker -> publisher: every change up to `version` is accepted (applied, fanned out, and
 * durable under the fsync policy when the broker keeps a log); `headOffset` is the offset the
 * last of them was given. Sent after each batch, and once right after WELCOME with what the
 * broker already holds (0, 0: nothing), so a publisher that reconnects learns which of its
 * unacknowledged changes survived.
 */
export interface AckFrame {
  type: 'ack';
  version: number;
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

/**
 * One key's latest state during a snapshot or delta: the change that last wrote
 * it, with the offset at which it was written. A deleted key's entry is a tombstone.
 */
export interface StateFrame {
  type: 'state';
  offset: number;
  change: Change;
}

/** Ends a snapshot or a delta: the subscriber's state now equals the stream at `offset`. */
export interface SyncEndFrame {
  type: 'syncEnd';
  kind: SyncKind;
  offset: number;
}

/** The broker had to discard events for this subscriber: offsets from..to will come as a delta. */
export interface LagFrame {
  type: 'lag';
  from: number;
  to: number;
}

/** Heartbeat: the head of the stream, so an idle subscriber can tell it is current. */
export interface ProgressFrame {
  type: 'progress';
  headOffset: number;
}

/** Subscriber asks for everything changed after `fromOffset` (it saw a gap). */
export interface ResumeFrame {
  type: 'resume';
  fromOffset: number;
}

export interface DigestRequestFrame {
  type: 'digestRequest';
}

/** The broker's digest of its state at `offset`: see digest.ts. */
export interface DigestFrame {
  type: 'digest';
  offset: number;
  digest: string;
  liveKeys: number;
}

export interface ErrorFrame {
  type: 'error';
  code: ErrorCode;
  message: string;
  /** tooOld: the oldest retained offset; inFuture: the head. Absent for every other code. */
  offset?: number;
}

export type Frame =
  | HelloFrame
  | WelcomeFrame
  | PublishFrame
  | EventFrame
  | ErrorFrame
  | StateFrame
  | SyncEndFrame
  | LagFrame
  | ProgressFrame
  | ResumeFrame
  | DigestRequestFrame
  | DigestFrame
  | AckFrame;
