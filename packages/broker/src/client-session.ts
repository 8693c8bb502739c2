import { timingSafeEqual } from 'node:crypto';
import type { QUICStream } from '@matrixai/quic';
import {
  encodeDigest,
  encodeError,
  encodeOffsetError,
  encodeSyncEnd,
  encodeWelcome,
  ErrorCode,
  FrameDecodeError,
  OFFSET_ERROR_CODES,
  PROTOCOL_VERSION,
  publishRefusal,
  Role,
  StartKind,
  SyncKind,
  type BrokerInit,
  type Frame,
  type HelloFrame,
} from '@state-divergence/protocol';
import { errorMessage, withDeadline, type Logger } from '@state-divergence/runtime';
import { readFrames } from '@state-divergence/runtime/quic';
import { Acker } from './acker.js';
import type { Intake } from './intake.js';
import type { Subscriber } from './subscriber/subscriber.js';
import type { SubscriptionSpec, Topic } from './topic.js';
import type { TransportSource } from './transport-tally.js';

const HELLO_TIMEOUT_MS = 10_000;
const ERROR_FLUSH_MS = 1_000;

/**
 * A client broke the protocol, or asked for what cannot be given (an offset retention
 * discarded or beyond the head, a publish the log could not store): it gets an ERROR frame
 * and loses its stream; everyone else carries on. tooOld and inFuture carry an offset.
 */
class ProtocolViolation extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly offset = 0,
  ) {
    super(message);
  }

  get frame(): Buffer {
    return OFFSET_ERROR_CODES.has(this.code)
      ? encodeOffsetError(this.code as typeof ErrorCode.tooOld, this.offset, this.message)
      : encodeError(this.code, this.message);
  }
}

export interface SessionContext {
  topic: Topic;
  init: BrokerInit;
  /** init.token as bytes. */
  token: Buffer;
  logger: Logger;
  /** The orchestrator said the run is over (ChildContext.ending): a stream failing now is no news. */
  ending: () => boolean;
  /** Only one publisher feeds the topic; a second one is refused. */
  publisher: { connected: boolean };
  /** This incarnation's epoch (WELCOME's). */
  epoch: number;
  /** Where PUBLISH frames go: the topic, or the log first (intake.ts). */
  intake: Intake;
}

type Frames = AsyncGenerator<Frame>;

/**
 * Meaning before order: a PUBLISH that could never be relayed is refused with
 * its specific reason whoever sent it, just as the decoder judges a frame's
 * shape before anyone asks whether the sender may send it. Only then does the
 * session check that this client is the publisher.
 */
function judgePublish(frame: Frame, context: SessionContext): void {
  if (frame.type !== 'publish') return;
  const refusal = publishRefusal(frame.change, {
    keys: context.init.keys,
    highestVersion: context.intake.highestVersion,
  });
  if (refusal !== null) throw new ProtocolViolation(refusal.code, refusal.message);
}

/**
 * Each PUBLISH goes to the intake; the ACKs follow the commits (acker.ts). A change the log
 * could not store stops the session: its ERROR goes out instead of any acknowledgement.
 */
export async function servePublisher(
  frames: Frames,
  name: string,
  context: SessionContext,
  acker: Acker,
  stopReading: () => void,
): Promise<void> {
  const { topic, intake } = context;
  let failure: Error | undefined;
  const failed = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new Error(String(error));
    stopReading();
  };
  for await (const frame of frames) {
    if (failure !== undefined) break;
    judgePublish(frame, context);
    if (frame.type !== 'publish')
      throw new ProtocolViolation(ErrorCode.unexpectedFrame, `publisher sent ${frame.type}; only publish is allowed`);
    // Lossless: pausing here stops reads from this stream; QUIC flow control does the rest.
    const room = topic.waitsForRoom ? topic.waitForRoom() : undefined;
    if (room) await room;
    const committed = intake.accept(frame.change, frame.body);
    if (committed === undefined) acker.soon();
    else committed.then(() => acker.soon(), failed);
    const turn = topic.writersTurn();
    if (turn) await turn;
  }
  // The last appends' ACKs: the publisher may still be reading after it finished writing.
  await withDeadline(intake.settled(), ERROR_FLUSH_MS, 'appends not settled').catch(() => {});
  if (failure !== undefined) throw new ProtocolViolation(ErrorCode.storageFailed, failure.message);
  context.logger.info({ client: name, head: topic.headOffset }, 'publisher finished');
}

async function serveSubscriber(frames: Frames, subscriber: Subscriber, context: SessionContext): Promise<void> {
  const { topic } = context;
  for await (const frame of frames) {
    judgePublish(frame, context);
    if (frame.type === 'resume') subscriber.resume(startingPoint(frame.fromOffset, 'resume from', topic));
    else if (frame.type === 'digestRequest')
      subscriber.requestDigest(() =>
        encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size),
      );
    else
      throw new ProtocolViolation(
        ErrorCode.unexpectedFrame,
        `subscriber sent ${frame.type}; after hello a subscriber may only send resume or digestRequest`,
      );
  }
  subscriber.end('subscriber closed its stream');
}

/** How a subscription starts: opening frames, then live; or (a broker with a log) the log's events after `replayAfter`,
 * then live. */
interface Opening {
  frames: Buffer[];
  replayAfter?: number;
}

/**
 * The start of a subscription, computed in the same tick the subscriber joins the
 * topic, so nothing between it and the live stream is lost or duplicated:
 * snapshot = every live key as of S then SYNC_END(S); offset N = with a log, the
 * log's events after N; without one, every key changed after N (tombstones too)
 * then SYNC_END(head); earliest = with a log, its events from the oldest retained;
 * without one nothing is retained, so the oldest retained event is the next one.
 */
function openingOf(hello: HelloFrame, topic: Topic): Opening {
  switch (hello.start) {
    case StartKind.latest:
      return { frames: [] };
    case StartKind.earliest:
      return topic.log === undefined
        ? { frames: [] }
        : { frames: [], replayAfter: Math.min(topic.log.oldest - 1, topic.headOffset) };
    case StartKind.snapshot:
      return { frames: [...topic.table.stateFramesSince(0, true), encodeSyncEnd(SyncKind.snapshot, topic.headOffset)] };
    case StartKind.offset: {
      const after = startingPoint(hello.startOffset, 'start offset', topic);
      if (topic.log !== undefined) return { frames: [], replayAfter: after };
      return { frames: [...topic.table.stateFramesSince(after), encodeSyncEnd(SyncKind.delta, topic.headOffset)] };
    }
  }
}

/**
 * An offset a subscriber says it already has (HELLO's start offset, RESUME's `from`) names an
 * event the broker assigned (else inFuture, with the head: a delta from beyond the head would
 * be empty, and the subscriber would take SYNC_END for "current"); with a log, its next event
 * must still be retained (else tooOld, with the oldest retained offset: the subscriber must
 * take a snapshot, never a silent restart at the tail).
 */
function startingPoint(offset: number, what: string, topic: Topic): number {
  const head = topic.headOffset;
  if (offset > head)
    throw new ProtocolViolation(ErrorCode.inFuture, `${what} ${offset} is beyond the head ${head}`, head);
  const oldest = topic.log?.oldest;
  if (oldest !== undefined && offset + 1 < oldest) {
    throw new ProtocolViolation(
      ErrorCode.tooOld,
      `${what} ${offset} is too old: the log keeps offsets from ${oldest} on; take a snapshot`,
      oldest,
    );
  }
  return offset;
}

/**
 * The slow-consumer ERROR, queued on the stream behind whatever is in flight (a
 * frozen peer reads it when it wakes), then the end of the stream. Only this
 * session waits for it, and no longer than the idle timeout: by then QUIC has
 * given up on the peer anyway.
 */
function sendFarewell(writer: WritableStreamDefaultWriter<Uint8Array>, error: Buffer, boundMs: number): Promise<void> {
  const flushed = Promise.all([writer.write(error), writer.close()]);
  return withDeadline(flushed, boundMs, 'slow-consumer ERROR not flushed').then(
    () => {},
    () => {},
  );
}

/** A subscription's stream ends with the slow-consumer ERROR once `flushed` is set: the session releases the stream
 * only after it. */
interface Farewell {
  flushed: Promise<void> | undefined;
}

/**
 * Joins a subscriber that passed admission. The welcome is queued on the writer
 * before any event, and the subscriber joins the topic in the same tick: it
 * receives exactly the events after headOffset.
 */
function admitSubscriber(
  hello: HelloFrame,
  stream: {
    writer: WritableStreamDefaultWriter<Uint8Array>;
    reader: ReadableStreamDefaultReader<Uint8Array>;
    transport: TransportSource;
  },
  context: SessionContext,
): { subscriber: Subscriber; farewell: Farewell } {
  const { topic, init, logger } = context;
  // A name identifies one live subscription (the broker's report and every resume are keyed by it);
  // a second claim must not take over a healthy consumer's stream. A name whose subscription ended
  // (a slow consumer the broker disconnected included) may subscribe again at once.
  if (topic.subscribers.has(hello.name))
    throw new ProtocolViolation(
      ErrorCode.nameInUse,
      `a subscriber named ${hello.name} is already connected; choose another name`,
    );
  const opening = openingOf(hello, topic);
  const { writer, reader } = stream;
  void writer.write(encodeWelcome(topic.headOffset, context.epoch)).catch(() => {});
  const farewell: Farewell = { flushed: undefined };
  const spec: SubscriptionSpec = {
    name: hello.name,
    queueCapacity: init.queueCapacity,
    batchMaxEvents: init.batchMaxEvents,
    coalesceMs: init.coalesceMs,
    write: (bytes) => writer.write(bytes),
    farewell: (error) => {
      farewell.flushed = sendFarewell(writer, error, init.idleTimeoutMs);
      // Stop reading: the session ends, and waits only for the farewell before releasing the stream.
      void reader.cancel().catch(() => {});
    },
    logger,
  };
  const subscriber = topic.subscribe(spec, opening.frames, opening.replayAfter);
  topic.stats.get(hello.name)?.transport.add(stream.transport);
  logger.info(
    {
      client: hello.name,
      role: 'subscriber',
      head: topic.headOffset,
      start: hello.start,
      openingFrames: opening.frames.length,
      replayAfter: opening.replayAfter,
    },
    'client admitted',
  );
  return { subscriber, farewell };
}

/** Serves one client stream: hello first, then the role it asked for. Never throws. `transport`: its connection's QUIC
 * counters. */
export async function serveClient(
  stream: QUICStream,
  transport: TransportSource,
  context: SessionContext,
): Promise<void> {
  const { topic, logger } = context;
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const frames = readFrames(reader);
  let subscriber: Subscriber | undefined;
  let farewell: Farewell | undefined;
  let acker: Acker | undefined;
  let name = '(before hello)';
  try {
    const first = await withDeadline(frames.next(), HELLO_TIMEOUT_MS, `no hello within ${HELLO_TIMEOUT_MS / 1000} s`);
    if (first.done) return;
    const hello = first.value;
    if (hello.type !== 'hello')
      throw new ProtocolViolation(ErrorCode.unexpectedFrame, `expected hello first, got ${hello.type}`);
    // Admission before anything else: an unauthenticated client learns nothing more about the broker.
    if (hello.token.length !== context.token.length || !timingSafeEqual(hello.token, context.token)) {
      throw new ProtocolViolation(ErrorCode.unauthorized, `${hello.name} presented no valid token for this run`);
    }
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      throw new ProtocolViolation(
        ErrorCode.unsupportedVersion,
        `protocol version ${hello.protocolVersion} unsupported; this broker speaks ${PROTOCOL_VERSION}`,
      );
    }
    name = hello.name;
    if (hello.role === Role.publisher) {
      if (context.publisher.connected)
        throw new ProtocolViolation(ErrorCode.unexpectedFrame, 'a publisher is already connected');
      context.publisher.connected = true;
      try {
        // A previous publisher's last appends first: WELCOME and the first ACK then say
        // exactly what was accepted, so the new one knows which of its changes survived.
        await withDeadline(context.intake.settled(), HELLO_TIMEOUT_MS, 'earlier appends not settled').catch(() => {});
        void writer.write(encodeWelcome(topic.headOffset, context.epoch)).catch(() => {});
        acker = new Acker(
          (bytes) => writer.write(bytes),
          () => ({ version: topic.highestVersion, head: topic.headOffset }),
        );
        acker.now();
        logger.info(
          { client: name, role: 'publisher', head: topic.headOffset, version: topic.highestVersion },
          'client admitted',
        );
        await servePublisher(frames, name, context, acker, () => void reader.cancel().catch(() => {}));
      } finally {
        context.publisher.connected = false;
      }
      return;
    }
    ({ subscriber, farewell } = admitSubscriber(hello, { writer, reader, transport }, context));
    await serveSubscriber(frames, subscriber, context);
  } catch (error) {
    acker?.stop(); // an ERROR, if anything, is the last frame
    if (error instanceof ProtocolViolation || error instanceof FrameDecodeError) {
      // An offset the broker cannot serve (tooOld, inFuture) is a refusal, not a broken client.
      const refused = OFFSET_ERROR_CODES.has(error.code);
      const what = refused
        ? 'refused'
        : error.code === ErrorCode.storageFailed
          ? 'storage failed'
          : 'protocol violation';
      logger[refused ? 'info' : error.code === ErrorCode.storageFailed ? 'error' : 'warn'](
        { client: name, code: error.code, reason: error.message },
        `${what}; closing that stream`,
      );
      subscriber?.end(`${what}: ${error.message}`);
      await withDeadline(
        (async () => {
          await writer.write(error instanceof ProtocolViolation ? error.frame : encodeError(error.code, error.message));
          await writer.close();
        })(),
        ERROR_FLUSH_MS,
        'error frame not flushed',
      ).catch(() => {});
      return;
    }
    const reason = `stream failed: ${errorMessage(error)}`;
    const level = topic.closing || context.ending() ? 'debug' : 'warn';
    if (subscriber) subscriber.end(reason, level);
    else logger[level]({ client: name, reason }, 'client stream failed');
  } finally {
    acker?.stop();
    // Every way out releases the stream now, rather than at the QUIC idle timeout
    // (after a slow-consumer ERROR: once it is flushed, or the peer is given up on).
    await farewell?.flushed;
    await reader.cancel().catch(() => {});
    await writer.abort().catch(() => {});
  }
}
