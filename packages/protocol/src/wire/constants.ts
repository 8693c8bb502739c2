/**
 * Wire constants: the single table both the encoder and the decoder read.
 * docs/PROTOCOL.md describes the same layout byte by byte; change both together.
 */

/** 2: WELCOME carries the broker's epoch; ACK, start kind `earliest`, ERRORs tooOld and inFuture (docs/PROTOCOL.md). */
export const PROTOCOL_VERSION = 2;

/**
 * The name the per-run certificate is issued to and our clients verify: quiche's BoringSSL
 * checks the server name as a DNS name and never matches an IP SAN (see docs/CONSUMER.md).
 */
export const TLS_SERVER_NAME = 'localhost';

/** Where the broker listens (UDP). The certificate also names it, for stacks that verify the address they dialled. */
export const BROKER_HOST = '127.0.0.1';

/** Every frame starts with a u32 length (of type + body) and a u8 type. */
export const FRAME_HEADER_LENGTH = 5;

/**
 * Upper bound on a frame's length field. The largest legitimate frame is an
 * EVENT with the largest allowed --payload; anything longer is rejected as soon
 * as the 4-byte length is known, before a byte of the body is buffered.
 */
export const MAX_PAYLOAD_BYTES = 65_536;
export const MAX_FRAME_LENGTH = 1 + 8 + 4 + 8 + 4 + 1 + 8 + MAX_PAYLOAD_BYTES;

export const FrameType = {
  hello: 0x01,
  welcome: 0x02,
  publish: 0x03,
  event: 0x04,
  error: 0x05,
  state: 0x06,
  syncEnd: 0x07,
  lag: 0x08,
  progress: 0x09,
  resume: 0x0a,
  digestRequest: 0x0b,
  digest: 0x0c,
  ack: 0x0d,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const Role = {
  publisher: 1,
  subscriber: 2,
} as const;
export type Role = (typeof Role)[keyof typeof Role];

/** Where a subscription starts (HELLO's start kind). */
export const StartKind = {
  /** Only events published after admission: today's behaviour. */
  latest: 0,
  /** Every key's current value as of offset S, SYNC_END(S), then events from S+1, atomically. */
  snapshot: 1,
  /** Every key changed after offset N (a delta), SYNC_END(H), then events from H+1. */
  offset: 2,
  /**
   * The oldest retained event, then everything after it: a durable broker replays its log
   * (not offset 0: retention may have discarded the start); a broker without a log retains
   * nothing, so there it is `latest`.
   */
  earliest: 3,
} as const;
export type StartKind = (typeof StartKind)[keyof typeof StartKind];

/** What a SYNC_END closes. */
export const SyncKind = {
  snapshot: 1,
  delta: 2,
} as const;
export type SyncKind = (typeof SyncKind)[keyof typeof SyncKind];

/** Change flags (a bit set). */
export const ChangeFlag = {
  delete: 0x01,
} as const;

/**
 * Codes carried by ERROR frames and by FrameDecodeError. Stable: clients may switch on them.
 * 1-3 are the decoder's (the frame's shape), 7-10 the broker's rules about what a
 * well-formed frame means in this run; docs/PROTOCOL.md lists when each is sent.
 */
export const ErrorCode = {
  frameTooLarge: 1,
  unknownFrameType: 2,
  malformedFrame: 3,
  unexpectedFrame: 4,
  unsupportedVersion: 5,
  unauthorized: 6,
  /** A PUBLISH whose payload is longer than MAX_PAYLOAD_BYTES: its EVENT would exceed the frame cap. */
  payloadTooLarge: 7,
  /** A PUBLISH whose key index is not below the run's keyspace size. */
  keyOutOfRange: 8,
  /** A PUBLISH whose version is not above every version the broker has accepted. */
  versionNotIncreasing: 9,
  /** A subscriber HELLO naming a subscriber that is still connected. */
  nameInUse: 10,
  /**
   * A lossy broker under `--overflow disconnect` found this subscriber's queue
   * full: it ends the stream (after whatever was already handed to it) and
   * forgets the subscription, so the name may subscribe again at once.
   */
  slowConsumer: 11,
  /**
   * A start offset (or RESUME) whose next event retention has discarded. The ERROR carries the
   * oldest retained offset: the subscriber must take a snapshot (relist), never a silent restart at the tail.
   */
  tooOld: 12,
  /** A start offset (or RESUME) beyond the head. The ERROR carries the head. */
  inFuture: 13,
  /**
   * To a publisher: the broker's log could not store a change, so it is not accepted (never
   * acknowledged), and this broker accepts no more changes until it is restarted.
   */
  storageFailed: 14,
} as const;

/** ERROR codes whose body carries a u64 offset before the message (oldest retained, or the head). */
export const OFFSET_ERROR_CODES: ReadonlySet<number> = new Set([12, 13]);

/**
 * ERROR messages are cut to this many bytes (on a UTF-8 character boundary), so
 * every frame the broker sends stays within MAX_FRAME_LENGTH whatever it quotes.
 */
export const MAX_ERROR_MESSAGE_BYTES = 1_024;

/** The per-run access token is this many random bytes (HELLO carries up to 255). */
export const TOKEN_BYTES = 32;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Fixed part of a PUBLISH body: key u32, version u64, value u32, flags u8, publishedAt f64. */
export const CHANGE_FIXED_LENGTH = 4 + 8 + 4 + 1 + 8;
/** Fixed part of an EVENT body: offset u64 followed by a PUBLISH body. */
export const EVENT_FIXED_LENGTH = 8 + CHANGE_FIXED_LENGTH;
/** Largest safe u64 we carry: JavaScript numbers are exact up to 2^53 - 1. */
export const MAX_U64_HIGH_WORD = 0x1f_ffff;

/** Bytes of a whole EVENT or STATE frame carrying `payloadLength` bytes of padding. */
export const eventFrameBytes = (payloadLength: number): number =>
  FRAME_HEADER_LENGTH + EVENT_FIXED_LENGTH + payloadLength;
