import { timingSafeEqual } from 'node:crypto';
import type { QUICStream } from '@matrixai/quic';
import {
  encodeDigest,
  encodeError,
  encodeSyncEnd,
  encodeWelcome,
  ErrorCode,
  FrameDecodeError,
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
import type { Subscriber } from './subscriber.js';
import type { SubscriptionSpec, Topic } from './topic.js';

const HELLO_TIMEOUT_MS = 10_000;
const ERROR_FLUSH_MS = 1_000;

/** A client broke the protocol: it gets an ERROR frame and loses its stream; everyone else carries on. */
class ProtocolViolation extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
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
  const refusal = publishRefusal(frame.change, { keys: context.init.keys, highestVersion: context.topic.highestVersion });
  if (refusal !== null) throw new ProtocolViolation(refusal.code, refusal.message);
}

async function servePublisher(frames: Frames, name: string, context: SessionContext): Promise<void> {
  const { topic } = context;
  for await (const frame of frames) {
    judgePublish(frame, context);
    if (frame.type !== 'publish') throw new ProtocolViolation(ErrorCode.unexpectedFrame, `publisher sent ${frame.type}; only publish is allowed`);
    // Lossless: pausing here stops reads from this stream; QUIC flow control does the rest.
    const room = topic.queuePolicy === 'block' ? topic.waitForRoom() : undefined;
    if (room) await room;
    topic.publish(frame.change, frame.body);
  }
  context.logger.info({ client: name, head: topic.headOffset }, 'publisher finished');
}

async function serveSubscriber(frames: Frames, subscriber: Subscriber, context: SessionContext): Promise<void> {
  const { topic } = context;
  for await (const frame of frames) {
    judgePublish(frame, context);
    if (frame.type === 'resume') subscriber.resume(notBeyondHead(frame.fromOffset, 'resume from', topic));
    else if (frame.type === 'digestRequest') subscriber.requestDigest(() => encodeDigest(topic.headOffset, topic.table.digest.toString(), topic.table.digest.size));
    else throw new ProtocolViolation(ErrorCode.unexpectedFrame, `subscriber sent ${frame.type}; after hello a subscriber may only send resume or digestRequest`);
  }
  subscriber.end('subscriber closed its stream');
}

/**
 * The frames that start a subscription, computed in the same tick the
 * subscriber joins the topic, so nothing between them and the live stream is
 * lost or duplicated: snapshot = every live key as of S then SYNC_END(S);
 * offset N = every key changed after N (tombstones too) then SYNC_END(head).
 */
function openingFrames(hello: HelloFrame, topic: Topic): Buffer[] {
  switch (hello.start) {
    case StartKind.latest:
    case StartKind.earliest: // without a log nothing is retained: the oldest retained event is the next one
      return [];
    case StartKind.snapshot:
      return [...topic.table.stateFramesSince(0, true), encodeSyncEnd(SyncKind.snapshot, topic.headOffset)];
    case StartKind.offset:
      return [...topic.table.stateFramesSince(notBeyondHead(hello.startOffset, 'start offset', topic)), encodeSyncEnd(SyncKind.delta, topic.headOffset)];
  }
}

/**
 * An offset a subscriber says it already has (HELLO's start offset, RESUME's `from`) names an
 * event the broker assigned, or it is a claim nothing can answer: a delta from beyond the head
 * would be empty, and the subscriber would take SYNC_END for "current".
 */
function notBeyondHead(offset: number, what: string, topic: Topic): number {
  if (offset > topic.headOffset) throw new ProtocolViolation(ErrorCode.malformedFrame, `${what} ${offset} is beyond the head ${topic.headOffset}`);
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

/** A subscription's stream ends with the slow-consumer ERROR once `flushed` is set: the session releases the stream only after it. */
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
  stream: { writer: WritableStreamDefaultWriter<Uint8Array>; reader: ReadableStreamDefaultReader<Uint8Array> },
  context: SessionContext,
): { subscriber: Subscriber; farewell: Farewell } {
  const { topic, init, logger } = context;
  // A name identifies one live subscription (the broker's report and every resume are keyed by it);
  // a second claim must not take over a healthy consumer's stream. A name whose subscription ended
  // (a slow consumer the broker disconnected included) may subscribe again at once.
  if (topic.subscribers.has(hello.name)) throw new ProtocolViolation(ErrorCode.nameInUse, `a subscriber named ${hello.name} is already connected; choose another name`);
  const opening = openingFrames(hello, topic);
  const { writer, reader } = stream;
  void writer.write(encodeWelcome(topic.headOffset, context.epoch)).catch(() => {});
  const farewell: Farewell = { flushed: undefined };
  const spec: SubscriptionSpec = {
    name: hello.name,
    capacity: init.queueCapacity,
    batchMaxEvents: init.batchMaxEvents,
    write: (bytes) => writer.write(bytes),
    farewell: (error) => {
      farewell.flushed = sendFarewell(writer, error, init.idleTimeoutMs);
      // Stop reading: the session ends, and waits only for the farewell before releasing the stream.
      void reader.cancel().catch(() => {});
    },
    logger,
  };
  const subscriber = topic.subscribe(spec, opening);
  logger.info({ client: hello.name, role: 'subscriber', head: topic.headOffset, start: hello.start, openingFrames: opening.length }, 'client admitted');
  return { subscriber, farewell };
}

/** Serves one client stream: hello first, then the role it asked for. Never throws. */
export async function serveClient(stream: QUICStream, context: SessionContext): Promise<void> {
  const { topic, logger } = context;
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const frames = readFrames(reader);
  let subscriber: Subscriber | undefined;
  let farewell: Farewell | undefined;
  let name = '(before hello)';
  try {
    const first = await withDeadline(frames.next(), HELLO_TIMEOUT_MS, `no hello within ${HELLO_TIMEOUT_MS / 1000} s`);
    if (first.done) return;
    const hello = first.value;
    if (hello.type !== 'hello') throw new ProtocolViolation(ErrorCode.unexpectedFrame, `expected hello first, got ${hello.type}`);
    // Admission before anything else: an unauthenticated client learns nothing more about the broker.
    if (hello.token.length !== context.token.length || !timingSafeEqual(hello.token, context.token)) {
      throw new ProtocolViolation(ErrorCode.unauthorized, `${hello.name} presented no valid token for this run`);
    }
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      throw new ProtocolViolation(ErrorCode.unsupportedVersion, `protocol version ${hello.protocolVersion} unsupported; this broker speaks ${PROTOCOL_VERSION}`);
    }
    name = hello.name;
    if (hello.role === Role.publisher) {
      if (context.publisher.connected) throw new ProtocolViolation(ErrorCode.unexpectedFrame, 'a publisher is already connected');
      context.publisher.connected = true;
      try {
        void writer.write(encodeWelcome(topic.headOffset, context.epoch)).catch(() => {});
        logger.info({ client: name, role: 'publisher' }, 'client admitted');
        await servePublisher(frames, name, context);
      } finally {
        context.publisher.connected = false;
      }
      return;
    }
    ({ subscriber, farewell } = admitSubscriber(hello, { writer, reader }, context));
    await serveSubscriber(frames, subscriber, context);
  } catch (error) {
    if (error instanceof ProtocolViolation || error instanceof FrameDecodeError) {
      logger.warn({ client: name, code: error.code, reason: error.message }, 'protocol violation; closing that stream');
      subscriber?.end(`protocol violation: ${error.message}`);
      await withDeadline(
        (async () => {
          await writer.write(encodeError(error.code, error.message));
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
    // Every way out releases the stream now, rather than at the QUIC idle timeout
    // (after a slow-consumer ERROR: once it is flushed, or the peer is given up on).
    await farewell?.flushed;
    await reader.cancel().catch(() => {});
    await writer.abort().catch(() => {});
  }
}
